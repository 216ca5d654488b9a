"""Real parts: uvicorn on loopback, the official MCP client over streamable HTTP and over stdio
(a subprocess), and the CLI as a subprocess. The same status input gives the same content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from groundnote.runtime import Runtime
from tests.conftest import mcp_body

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

GROUNDNOTE = [sys.executable, "-m", "groundnote"]


def _comparable(status: dict[str, Any]) -> dict[str, Any]:
    for scope in status["scopes"]:
        scope["rows"].pop("search_log")
        scope["rows"].pop("log_tally")  # the log counted by actor and operation
        scope.pop("file_bytes")
    return status


async def test_mcp_over_streamable_http(live_server: str, agent_token: str) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http_client,
        Client(streamable_http_client(f"{live_server}/mcp", http_client=http_client)) as client,
    ):
        assert client.instructions and client.instructions.startswith("Groundnote keeps confirmed")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["status"].input_schema["additionalProperties"] is False
        assert (
            tools["status"].annotations is not None and tools["status"].annotations.read_only_hint
        )
        result = await client.call_tool("status", {"scope": "sales"})
        assert not result.is_error
        refused = await client.call_tool("status", {"scope": "sales", "colour": "red"})
        assert refused.is_error and mcp_body(refused)["error"] == "validation-failed"

    response = httpx.get(f"{live_server}/v1/status", params={"scope": "sales"}, headers=headers)
    assert response.status_code == 200
    assert _comparable(response.json()) == _comparable(result.structured_content)


async def test_mcp_endpoint_needs_a_token(live_server: str) -> None:
    response = httpx.post(f"{live_server}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401
    assert response.json()["error"] == "auth-required"


async def test_mcp_over_stdio_and_the_cli_subprocess(
    runtime: Runtime, home_path: Path, agent_token: str
) -> None:
    env = {**os.environ, "GROUNDNOTE_HOME": str(home_path)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "groundnote", "mcp", "--token", agent_token], env=env
    )
    async with Client(params) as client:
        over_stdio = await client.call_tool("status", {"scope": "sales"})
        refused = await client.call_tool("status", {"scope": "sales", "colour": "red"})
    assert not over_stdio.is_error
    assert refused.is_error and mcp_body(refused)["error"] == "validation-failed"

    done = subprocess.run(
        [*GROUNDNOTE, "--token", agent_token, "status", "--scope", "sales", "--output", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert _comparable(json.loads(done.stdout)) == _comparable(over_stdio.structured_content)

    bad = subprocess.run(
        [
            *GROUNDNOTE,
            "--token",
            agent_token,
            "status",
            "--json",
            '{"scope":"sales","colour":"red"}',
            "--output",
            "json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    assert json.loads(bad.stderr)["error"] == "validation-failed"


def test_mcp_with_a_bad_token_refuses_to_start(home_path: Path, runtime: Runtime) -> None:
    env = {**os.environ, "GROUNDNOTE_HOME": str(home_path)}
    done = subprocess.run(
        [*GROUNDNOTE, "mcp", "--token", "gn_wrong"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "The token is unknown, revoked or expired." in done.stderr
