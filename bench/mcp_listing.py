"""What an MCP host sees before the first call: the size of `tools/list` per grant kind, and
how long `groundnote mcp` takes from start to answering `initialize` over stdio (targets:
≤ 40,000 characters for a grant with every right; ≤ 1 s). `bench.transports --listing` prints
both.
"""

from __future__ import annotations

import json
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from bench.common import print_table
from groundnote.auth import Principal, Right, create_grant
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.server import build_server

__all__ = ["print_listing"]

LIST_TARGET = 40_000
START_TARGET_MS = 1000.0
# grant kind → its rights; every kind reaches MCP only
KINDS: dict[str, dict[str, Right]] = {
    "read on one scope": {"demo": Right.READ},
    "propose on one scope": {"demo": Right.PROPOSE},
    "every right (decide on *)": {"*": Right.DECIDE},
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _listing_chars(runtime: Runtime, principal: Principal) -> tuple[int, int]:
    """(tools, characters of the tools/list result as compact JSON, as it goes on the wire)."""

    async def listing() -> tuple[int, int]:
        async with Client(build_server(runtime, lambda _ctx: principal)) as client:
            tools = (await client.list_tools()).tools
        data = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        wire = json.dumps({"tools": data}, ensure_ascii=False, separators=(",", ":"))
        return len(tools), len(wire)

    return anyio.run(listing)


def _start_to_answers_ms(home: Path, token: str) -> tuple[float, float]:
    """(start → initialize answered, start → the first tools/list answered), in ms."""
    command = [sys.executable, "-m", "groundnote", "--home", str(home), "mcp", "--token", token]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    start = time.perf_counter()
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        for message in (INITIALIZE, initialized, listing):
            process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        times = []
        for _ in range(2):
            ready, _, _ = select.select([process.stdout], [], [], 60)
            line = process.stdout.readline() if ready else b""
            times.append((time.perf_counter() - start) * 1000)
            assert b'"result"' in line, line
        process.stdin.close()
        process.wait(timeout=10)
    return times[0], times[1]


def print_listing(runtime: Runtime, rounds: int = 5) -> None:
    if "demo" not in runtime.home.scope_names():
        runtime.home.create_scope("demo")
    rows: list[list[Any]] = []
    tokens = []
    for kind, rights in KINDS.items():
        _, token = create_grant(
            runtime.home.instance,
            f"listing-{len(tokens)}",
            rights=rights,
            channels=["mcp"],
            org="local",
            now=runtime.home.clock.instant(),
        )
        tokens.append(token)
        principal = runtime.authenticate(token)
        assert principal is not None
        count, chars = _listing_chars(runtime, principal)
        verdict = ("meets" if chars <= LIST_TARGET else "MISSES") + f" ≤ {LIST_TARGET:,}"
        rows.append([kind, count, f"{chars:,}", f"≈{chars // 4:,}", verdict])
    print_table(
        "tools/list per grant kind (characters of compact JSON; tokens ≈ characters / 4)",
        ["grant", "tools", "characters", "tokens", "target"],
        rows,
    )
    _start_to_answers_ms(runtime.home.path, tokens[-1])  # the first start fills caches
    samples = [_start_to_answers_ms(runtime.home.path, tokens[-1]) for _ in range(rounds)]
    rows = []
    for label, column in (("initialize", 0), ("first tools/list", 1)):
        times = [s[column] for s in samples]
        median = statistics.median(times)
        target = ""
        if column == 0:
            met = "meets" if median <= START_TARGET_MS else "MISSES"
            target = f"{met} ≤ {START_TARGET_MS:.0f} ms"
        rows.append([label, median, min(times), max(times), target])
    print_table(
        f"groundnote mcp over stdio, from start until answered ({rounds} starts, ms)",
        ["answer", "median", "min", "max", "target"],
        rows,
    )
