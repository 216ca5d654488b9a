"""SIGKILL `groundnote serve` at random moments under concurrent writers from several processes.

Each round starts serve on a home, lets the writer processes (each its own OS process,
writing entities and mails over HTTP) run against it, kills serve with SIGKILL at a random
moment, and starts it again. A writer counts a write as acknowledged only when its 200
answer arrived, and notes it in its own file. At the end every acknowledged write must be in
the store, and `groundnote check` must find nothing wrong. Prints

    N rounds, W writes acknowledged, L lost; check: ok

    .venv/bin/python -m bench.crash [--rounds 10] [--writers 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from groundnote.auth import Right, create_grant
from groundnote.runtime import open_runtime

SCOPE = "crash"


@dataclass(frozen=True)
class Outcome:
    rounds: int
    acknowledged: int
    lost: list[str]
    check_ok: bool
    check_output: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(port: int, token: str, path: str, body: dict[str, object]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.request("POST", path, body=json.dumps(body), headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def writer(port: int, token: str, name: str, acks: str, stop: object) -> None:
    """Write until told to stop; append the ref of each acknowledged write to `acks`."""
    assert hasattr(stop, "is_set")
    n = 0
    fd = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while not stop.is_set():
            n += 1
            if n % 2:
                ref = f"mail:<{name}-{n}@crash.example>"
                body: dict[str, object] = {
                    "scope": SCOPE,
                    "source": {"kind": "mail", "id": ref, "subject": f"{name} {n}"},
                }
                path = "/v1/sources"
            else:
                ref = f"entity:Crash {name} {n}"
                body = {
                    "scope": SCOPE,
                    "type": "customer",
                    "name": f"Crash {name} {n}",
                    "force": True,
                    "reason": "a load test writes many similar names",
                }
                path = "/v1/entities"
            try:
                status = _post(port, token, path, body)
            except OSError:
                time.sleep(0.05)  # serve is down (killed) or not up yet
                continue
            if status == 200:
                os.write(fd, (ref + "\n").encode())
    finally:
        os.close(fd)


def _start_serve(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, GROUNDNOTE_HOME=str(home))
    server = subprocess.Popen(
        [sys.executable, "-m", "groundnote", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # serve binds its port before the app is ready; the round's time to live starts once it
    # answers, so that a slow start (PostgreSQL on a loaded machine) still meets the writers
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                conn.request("GET", "/openapi.json")
                if conn.getresponse().status == 200:
                    return server
            finally:
                conn.close()
        except OSError:
            pass
        time.sleep(0.05)
    server.kill()
    raise RuntimeError("serve did not answer within 60 s")


def _stored(home: Path) -> tuple[set[str], set[str]]:
    runtime = open_runtime(home, environ={})
    try:
        with runtime.home.scope_db(SCOPE).read() as conn:
            mails = {str(r[0]) for r in conn.execute("SELECT id FROM source")}
            names = {str(r[0]) for r in conn.execute("SELECT name FROM entity_current")}
    finally:
        runtime.close()
    return mails, names


def run(rounds: int, writers: int, seed: int, root: Path) -> Outcome:
    rng = random.Random(seed)
    home = root / "home"
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope(SCOPE)
    _, token = create_grant(
        runtime.home.instance,
        "crash-writer",
        rights={SCOPE: Right.PROPOSE},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    runtime.close()
    port = _free_port()
    spawn = multiprocessing.get_context("spawn")
    stop = spawn.Event()
    ack_files = [root / f"acks-{i}.txt" for i in range(writers)]
    procs = [
        spawn.Process(target=writer, args=(port, token, f"w{i}", str(ack_files[i]), stop))
        for i in range(writers)
    ]
    for p in procs:
        p.start()
    try:
        for _ in range(rounds):
            server = _start_serve(home, port)
            time.sleep(rng.uniform(0.5, 2.0))
            server.send_signal(signal.SIGKILL)
            server.wait()
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=30)
    acknowledged = [
        line for f in ack_files if f.exists() for line in f.read_text().splitlines() if line
    ]
    mails, names = _stored(home)
    lost = [
        ref
        for ref in acknowledged
        if (
            ref.removeprefix("entity:") not in names
            if ref.startswith("entity:")
            else ref not in mails
        )
    ]
    check = subprocess.run(
        [sys.executable, "-m", "groundnote", "--home", str(home), "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    return Outcome(
        rounds, len(acknowledged), lost, check.returncode == 0, check.stdout + check.stderr
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = run(args.rounds, args.writers, args.seed, Path(tmp))
    state = "ok" if out.check_ok else "FAILED\n" + out.check_output
    print(
        f"{out.rounds} rounds, {out.acknowledged} writes acknowledged, {len(out.lost)} lost; "
        f"check: {state}"
    )
    for ref in out.lost[:20]:
        print("lost:", ref)
    if out.lost or not out.check_ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
