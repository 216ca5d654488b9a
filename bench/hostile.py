"""Hostile load against a real `groundnote serve` (a separate process on loopback).

Prints the server's resident memory before and at its peak while a 300 MB chunked body is
sent without credentials to `/v1/entities` and to `/v2/impulses/resolve`, and how fast 1,000
bad tokens are answered (and how many of them were throttled with 429), and how fast reads
are answered on one kept-alive connection.

    .venv/bin/python -m bench.hostile [--mb 300] [--tokens 1000]

To compare with another tree, run it with `PYTHONPATH=<that tree>/src` (the server is started
with the same interpreter and path).
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

CHUNK = b"[" * 65536


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Sampler(threading.Thread):
    """The peak resident memory of a process while it runs."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.01)


def _chunks(total: int) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield CHUNK
        sent += len(CHUNK)


def big_body(base: str, path: str, megabytes: int, pid: int) -> tuple[float, float, str, float]:
    """(rss before, peak rss, answer, seconds) for one chunked body of `megabytes`."""
    before = rss_mb(pid)
    sampler = Sampler(pid)
    sampler.start()
    started = time.perf_counter()
    try:
        response = httpx.post(
            base + path,
            content=_chunks(megabytes * 1024 * 1024),
            headers={"Content-Type": "application/json"},
            timeout=120,
        )
        answer = str(response.status_code)
    except httpx.HTTPError as exc:  # the server may close the connection after refusing
        answer = f"closed ({type(exc).__name__})"
    elapsed = time.perf_counter() - started
    time.sleep(0.3)
    sampler.done.set()
    sampler.join()
    return before, sampler.peak, answer, elapsed


def bad_tokens(base: str, n: int) -> tuple[float, dict[int, int]]:
    """Answers a second to `n` bad tokens, a fresh connection each as a guesser's would be
    (the standard library's client: httpx's own cost per request is larger than the
    server's)."""
    counts: dict[int, int] = {}
    host, port = base.removeprefix("http://").split(":")
    started = time.perf_counter()
    for i in range(n):
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("GET", "/v1/scopes", headers={"Authorization": f"Bearer wrong-{i}"})
        response = conn.getresponse()
        response.read()
        conn.close()
        counts[response.status] = counts.get(response.status, 0) + 1
    return n / (time.perf_counter() - started), counts


def kept_alive(base: str, n: int) -> float:
    """Answers a second to `n` reads on one kept-alive connection (a client's usual way)."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    started = time.perf_counter()
    for _ in range(n):
        conn.request("GET", "/v2/discovery")
        response = conn.getresponse()
        response.read()
    elapsed = time.perf_counter() - started
    conn.close()
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=300)
    parser.add_argument("--tokens", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        env = dict(os.environ, GROUNDNOTE_HOME=str(Path(tmp) / "home"))
        server = subprocess.Popen(
            [sys.executable, "-m", "groundnote", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(base + "/openapi.json", timeout=2)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            for path in ("/v1/entities", "/v2/impulses/resolve"):
                before, peak, answer, secs = big_body(base, path, args.mb, server.pid)
                print(
                    f"{args.mb} MB chunked to {path} without a token: answer {answer} after "
                    f"{secs:.2f} s; serve RSS {before:.0f} MB before, {peak:.0f} MB peak "
                    f"(+{peak - before:.0f} MB)"
                )
            print(f"200 reads on one kept-alive connection: {kept_alive(base, 200):.0f} answers/s")
            rate, counts = bad_tokens(base, args.tokens)
            shown = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            print(f"{args.tokens} bad tokens: {rate:.0f} answers/s ({shown})")
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
