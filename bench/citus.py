"""App servers against one PostgreSQL and against a Citus cluster, side by side (issue 16).

    /work/shared/citus/citus-cluster start /tmp/citus 9700
    .venv/bin/python bench/citus.py --postgres postgresql://postgres@127.0.0.1:5432/postgres \
        --citus postgresql://postgres@127.0.0.1:9700/postgres

For each server a throwaway database is made (on Citus across the cluster, the workers
registered) and dropped at the end; a home on it gets four scopes (on Citus spread over the
workers). Then with 1, 2 and 3 `groundnote serve` processes: writers over HTTP spread over the
servers and scopes for a fixed time (entity_create per second, all servers together), then
resolve and search p95 over HTTP, each call to the next server in turn. Printed with the ratio
Citus / PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402

from bench.common import Timing, print_table  # noqa: E402
from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.runtime import open_runtime  # noqa: E402
from groundnote.store import citus  # noqa: E402
from groundnote.store.postgres import close_pools  # noqa: E402

SCOPES = ["north", "south", "east", "west"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _database(server: str, on_citus: bool) -> Iterator[str]:
    name = f"gn_bench_citus_{uuid.uuid4().hex[:8]}"
    if on_citus:
        url = citus.prepare_database(server, name)
    else:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(
                f"CREATE DATABASE \"{name}\" TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'"
            )
        url = citus.with_database(server, name)
    try:
        yield url
    finally:
        close_pools(url)
        if on_citus:
            citus.drop_database(server, name)
        else:
            with psycopg.connect(server, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _serve(home: Path) -> Iterator[str]:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "groundnote",
        "--home",
        str(home),
        "serve",
        "--port",
        str(port),
    ]
    env = {k: v for k, v in os.environ.items() if k != "GROUNDNOTE_DATABASE_URL"}
    with subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    ) as p:
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    httpx.get(f"{base}/openapi.json", timeout=5)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or p.poll() is not None:
                        raise RuntimeError("serve did not start") from None
                    time.sleep(0.2)
            yield base
        finally:
            p.terminate()
            p.wait(timeout=30)


def _home(folder: Path, url: str) -> tuple[Path, str]:
    home = folder / "home"
    home.mkdir()
    (home / "groundnote.json").write_text(json.dumps({"database": {"url": url}}))
    rt = open_runtime(home, environ={})
    for scope in SCOPES:
        rt.home.create_scope(scope, approval_mode="auto")
    _, token = create_grant(
        rt.home.instance,
        "bench",
        rights={scope: Right.PROPOSE for scope in SCOPES},
        channels=["api"],
        org="local",
        now=rt.home.clock.instant(),
    )
    rt.close()
    close_pools(url)
    return home, token


def _post(client: httpx.Client, url: str, body: Mapping[str, object]) -> float:
    start = time.perf_counter()
    response = client.post(url, json=body)
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code} {response.text[:200]}")
    return elapsed


def _round(
    servers: list[str], token: str, writers: int, seconds: float, calls: int
) -> dict[str, float]:
    headers = {"Authorization": f"Bearer {token}"}
    stop = time.monotonic() + seconds
    done = [0] * writers
    names: list[tuple[str, str]] = []
    lock = threading.Lock()

    def write(number: int) -> None:
        with httpx.Client(headers=headers, timeout=60) as client:
            i = 0
            while time.monotonic() < stop:
                scope = SCOPES[(number + i) % len(SCOPES)]
                name = f"Firma {uuid.uuid4().hex[:12]}"
                body = {"scope": scope, "type": "organisation", "name": name}
                _post(client, f"{servers[(number + i) % len(servers)]}/v1/entities", body)
                with lock:
                    names.append((scope, name))
                done[number] += 1
                i += 1

    started = time.monotonic()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, range(writers)))
    writes_per_s = sum(done) / (time.monotonic() - started)
    load = os.getloadavg()[0]
    resolve, search, create = [], [], []
    with httpx.Client(headers=headers, timeout=60) as client:
        for i in range(calls):
            scope, name = names[(i * 7919) % len(names)]
            base = servers[i % len(servers)]
            resolve.append(
                _post(client, f"{base}/v1/entities/resolve", {"scope": scope, "q": name[:10]})
            )
            search.append(
                _post(client, f"{base}/v1/search", {"scope": scope, "query": "Firma Lieferung"})
            )
            # one client alone: the latency of a write, without the writers' contention
            body = {"scope": scope, "type": "organisation", "name": f"Solo {uuid.uuid4().hex[:12]}"}
            create.append(_post(client, f"{base}/v1/entities", body))
    return {
        "writes/s": writes_per_s,
        "create p50 ms (1 client)": Timing(create).p50,
        "resolve p50 ms": Timing(resolve).p50,
        "resolve p95 ms": Timing(resolve).p95,
        "search p50 ms": Timing(search).p50,
        "search p95 ms": Timing(search).p95,
        "load avg (1 min)": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--citus", default="postgresql://postgres@127.0.0.1:9700/postgres")
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--calls", type=int, default=60)
    args = parser.parse_args()
    results: dict[tuple[str, int], dict[str, float]] = {}
    for label, server, on_citus in (
        ("postgresql", args.postgres, False),
        ("citus", args.citus, True),
    ):
        with _database(server, on_citus) as url, tempfile.TemporaryDirectory() as folder:
            home, token = _home(Path(folder), url)
            if on_citus:
                placed = citus.placements(url) or {}
                print("citus placement:", {s: p.nodes for s, p in placed.items()})
            for count in (1, 2, 3):
                with ExitStack() as stack:
                    servers = [stack.enter_context(_serve(home)) for _ in range(count)]
                    results[(label, count)] = _round(
                        servers, token, args.writers, args.seconds, args.calls
                    )
                print(label, count, results[(label, count)], flush=True)
    rows = []
    for count in (1, 2, 3):
        pg, ct = results[("postgresql", count)], results[("citus", count)]
        for metric in pg:
            rows.append([count, metric, pg[metric], ct[metric], ct[metric] / pg[metric]])
    print_table(
        f"{args.writers} HTTP writers for {args.seconds:.0f} s, then {args.calls} resolves, "
        "searches and single creates (one client); every process on the same 2 cores",
        ["servers", "measure", "postgresql", "citus", "citus/pg"],
        rows,
    )
    print("\nextra latency per call on Citus against one PostgreSQL (p50, citus - pg), ms:")
    for count in (1, 2, 3):
        pg, ct = results[("postgresql", count)], results[("citus", count)]
        extra = {
            m.split(" p50")[0]: ct[m] - pg[m] for m in pg if " p50 " in m or m.endswith(" p50 ms")
        }
        print(f"  {count} server(s): " + ", ".join(f"{k} {v:+.1f}" for k, v in extra.items()))
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
