"""`status` per call: directly, over HTTP (uvicorn on loopback, a separate process) and over
MCP (the official client over streamable HTTP and over stdio). Prints calls per second, p50,
p95 and the overhead over direct at p50 (targets: HTTP ≤ 2 ms, MCP ≤ 3 ms).

    .venv/bin/python -m bench.transports [--n 500]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.common import Timing, print_table, time_calls
from groundnote.auth import Right, create_grant
from groundnote.runtime import open_runtime

TARGETS = {"http": 2.0, "mcp-http": 3.0, "mcp-stdio": 3.0}


async def _time_mcp(client: Client, n: int) -> Timing:
    for _ in range(20):
        await client.call_tool("status", {"scope": "demo"})
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        result = await client.call_tool("status", {"scope": "demo"})
        samples.append((time.perf_counter() - start) * 1000)
        assert not result.is_error
    return Timing(samples)


async def _mcp_http(url: str, token: str, n: int) -> Timing:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http_client,
        Client(streamable_http_client(url, http_client=http_client)) as client,
    ):
        return await _time_mcp(client, n)


async def _mcp_stdio(home: Path, token: str, n: int) -> Timing:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "groundnote", "--home", str(home), "mcp", "--token", token],
    )
    async with Client(params) as client:
        return await _time_mcp(client, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500, help="calls per transport")
    parser.add_argument("--port", type=int, default=18765)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="gn-bench-")) / "home"
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope("demo")
    _, token = create_grant(
        runtime.home.instance,
        "bench",
        rights={"*": Right.READ},
        channels=["mcp", "api", "cli"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    principal = runtime.authenticate(token)
    status = runtime.registry.get("core.status")
    results: dict[str, Timing] = {
        "direct": time_calls(
            lambda: runtime.invoke(status, {"scope": "demo"}, principal=principal, channel="mcp"),
            args.n,
        )
    }

    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "groundnote",
            "--home",
            str(home),
            "serve",
            "--port",
            str(args.port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    base = f"http://127.0.0.1:{args.port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/openapi.json", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as client:
            results["http"] = time_calls(
                lambda: client.get("/v1/status", params={"scope": "demo"}).raise_for_status(),
                args.n,
            )
        results["mcp-http"] = asyncio.run(_mcp_http(f"{base}/mcp", token, args.n))
    finally:
        server.terminate()
        server.wait(timeout=10)
    results["mcp-stdio"] = asyncio.run(_mcp_stdio(home, token, args.n))

    direct = results["direct"].p50
    rows = []
    for name, timing in results.items():
        overhead = timing.p50 - direct
        target = TARGETS.get(name)
        verdict = (
            ""
            if target is None
            else ("meets" if overhead <= target else "MISSES") + f" ≤ {target} ms"
        )
        rows.append(
            [
                name,
                timing.per_second,
                timing.p50,
                timing.p95,
                "" if name == "direct" else f"{overhead:.2f}",
                verdict,
            ]
        )
    print_table(
        f"status, {args.n} calls per transport (ms)",
        ["transport", "calls/s", "p50", "p95", "overhead p50", "target"],
        rows,
    )
    runtime.close()


if __name__ == "__main__":
    main()
