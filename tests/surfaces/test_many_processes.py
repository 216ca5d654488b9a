"""Many processes, one truth (issue 12): serve (uvicorn on loopback, this test's process), two
`groundnote mcp` stdio processes driven by the official MCP client, and the command line, all
on one home. What any one writes, every other resolves on its next call (exact, umlaut spelling,
one typo) and refuses to duplicate (literally and similarly), although each of them had built
its resolve index before the write. (The command line starts afresh for every call, so as a
reader it holds no state; it is here for its writes, which the long-lived processes must see.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from groundnote.runtime import Runtime

# Every CLI step is a process of its own, which on PostgreSQL also connects and looks at each
# schema's ledger before it answers: 161 s there on the shared machine (load average 13),
# past the suite's 120 s default.
pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.timeout(300)]

Answer = tuple[bool, dict[str, Any]]
Caller = Callable[[str, dict[str, Any]], Awaitable[Answer]]

# One entity per writer: its name, its umlaut-free spelling, and the name with one typo.
WRITTEN = {
    "http": ("Schäfer Logistik AG", "Schaefer Logistik AG", "Schäfer Logistk AG"),
    "mcp-1": ("Müller Gießerei GmbH", "Mueller Giesserei GmbH", "Müller Gießerie GmbH"),
    "mcp-2": ("Köhler Anlagenbau KG", "Koehler Anlagenbau KG", "Köhler Anlagnbau KG"),
    "cli": ("Jäger Elektrotechnik", "Jaeger Elektrotechnik", "Jäger Elektortechnik"),
}


@dataclass
class Surface:
    name: str
    call: Caller


def _http(base: str, token: str) -> Caller:
    routes = {"entity_resolve": "/v1/entities/resolve", "entity_create": "/v1/entities"}

    async def call(tool: str, raw: dict[str, Any]) -> Answer:
        def post() -> Answer:
            response = httpx.post(
                base + routes[tool],
                json=raw,
                headers={"Authorization": f"Bearer {token}"},
                timeout=60,
            )
            return response.status_code < 400, response.json()

        return await anyio.to_thread.run_sync(post)

    return call


def _mcp(client: Client) -> Caller:
    async def call(tool: str, raw: dict[str, Any]) -> Answer:
        result = await client.call_tool(tool, raw)
        if result.is_error:  # a refusal travels as JSON text only (surfaces/mcp error_result)
            return False, json.loads(result.content[0].text)
        assert result.structured_content is not None
        return True, result.structured_content

    return call


def _cli(home: Path, token: str) -> Caller:
    commands = {"entity_resolve": ["entity", "resolve"], "entity_create": ["entity", "create"]}

    async def call(tool: str, raw: dict[str, Any]) -> Answer:
        def run() -> Answer:
            args = [*commands[tool], "--json", json.dumps(raw), "--output", "json"]
            done = subprocess.run(
                [sys.executable, "-m", "groundnote", "--home", str(home), "--token", token, *args],
                capture_output=True,
                text=True,
                timeout=120,
            )
            text = done.stdout if done.stdout.strip() else done.stderr
            return done.returncode == 0, json.loads(text)

        return await anyio.to_thread.run_sync(run)

    return call


def _stdio(home: Path, token: str) -> StdioServerParameters:
    env = {**os.environ, "GROUNDNOTE_HOME": str(home)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "groundnote", "mcp", "--token", token], env=env
    )


async def _resolved_id(surface: Surface, q: str) -> str | None:
    ok, body = await surface.call("entity_resolve", {"scope": "sales", "q": q})
    assert ok, (surface.name, body)
    return body["candidates"][0]["id"] if body["candidates"] else None


async def test_a_write_in_any_process_is_seen_by_every_other(
    runtime: Runtime, home_path: Path, agent_token: str, live_server: str
) -> None:
    async with (
        Client(_stdio(home_path, agent_token)) as first,
        Client(_stdio(home_path, agent_token)) as second,
    ):
        surfaces = [
            Surface("http", _http(live_server, agent_token)),
            Surface("mcp-1", _mcp(first)),
            Surface("mcp-2", _mcp(second)),
            Surface("cli", _cli(home_path, agent_token)),
        ]
        # Every long-lived process builds its resolve index now, before any of the writes.
        for surface in surfaces:
            assert await _resolved_id(surface, "Logistik") is None

        for writer in surfaces:
            name, umlaut_free, typo = WRITTEN[writer.name]
            ok, body = await writer.call(
                "entity_create", {"scope": "sales", "type": "organisation", "name": name}
            )
            assert ok, (writer.name, body)
            created = body["entity"]["id"]
            for reader in surfaces:
                if reader is writer:
                    continue
                for q in (name, umlaut_free, typo):
                    assert await _resolved_id(reader, q) == created, (writer.name, reader.name, q)
                for duplicate in (name, umlaut_free):
                    ok, refused = await reader.call(
                        "entity_create",
                        {"scope": "sales", "type": "organisation", "name": duplicate},
                    )
                    assert not ok, (writer.name, reader.name, duplicate, refused)
                    assert refused["error"] == "duplicate-candidate"
                    assert [c["id"] for c in refused["candidates"]][:1] == [created]

    with runtime.home.scope_db("sales").read() as conn:
        names = sorted(r[0] for r in conn.execute("SELECT name FROM entity_current"))
    assert names == sorted(name for name, _, _ in WRITTEN.values())
