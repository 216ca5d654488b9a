"""`groundnote mcp` on its stdio wire: `initialize` answered before the SDK is imported (and
equal to the SDK's own answer), a parse error for every line the server cannot take, and the
grant checked on every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from groundnote.auth import Principal, Right, create_grant, revoke_grant
from groundnote.domain.clock import FixedClock
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.entry import runs_mcp
from groundnote.surfaces.mcp.front import HANDSHAKE_VERSIONS, early_initialize_result
from groundnote.surfaces.mcp.server import build_server, checked_each_call
from tests.conftest import mcp_body

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _initialize(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }


async def _sdk_answer(runtime: Runtime, agent: Principal, request: dict[str, Any]) -> Any:
    server = build_server(runtime, lambda _ctx: agent)
    send_in, receive_in = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    send_out, receive_out = anyio.create_memory_object_stream[SessionMessage](1)
    async with send_in, receive_in, send_out, receive_out, anyio.create_task_group() as tasks:
        tasks.start_soon(server.run, receive_in, send_out, server.create_initialization_options())
        message = types.jsonrpc_message_adapter.validate_python(request, by_name=False)
        await send_in.send(SessionMessage(message))
        answer = await receive_out.receive()
        tasks.cancel_scope.cancel()
    return answer.message.model_dump(mode="json", by_alias=True, exclude_unset=True)


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, "1999-01-01"])
async def test_the_early_initialize_answer_is_the_sdks(
    runtime: Runtime, agent: Principal, version: str
) -> None:
    sdk = await _sdk_answer(runtime, agent, _initialize(version))
    assert sdk["result"] == early_initialize_result(_initialize(version)["params"])


def test_the_front_knows_every_version_the_sdk_negotiates() -> None:
    """The capabilities are held by the test above, answer for answer."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    assert HANDSHAKE_PROTOCOL_VERSIONS == HANDSHAKE_VERSIONS


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["mcp", "--token", "x"], True),
        (["--home", "mcp", "status"], False),  # a home named mcp
        (["--home", "h", "--token", "t", "mcp"], True),
        (["mcp", "--help"], False),
        (["status", "--scope", "mcp"], False),
        ([], False),
    ],
)
def test_the_entry_claims_the_wire_only_for_mcp(args: list[str], expected: bool) -> None:
    assert runs_mcp(args) is expected


def _raw_session(home: Path, token: str, lines: list[bytes]) -> list[dict[str, Any]]:
    """Sends the lines to `groundnote mcp`, closes its input and returns every line it wrote."""
    command = [sys.executable, "-m", "groundnote", "--home", str(home), "mcp", "--token", token]
    done = subprocess.run(
        command,
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_a_line_the_server_cannot_take_gets_a_parse_error(
    home_path: Path, agent_token: str, runtime: Runtime
) -> None:
    surrogate = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status",'
    surrogate += b'"arguments":{"scope":"\\ud800"}}}'
    lines = [
        json.dumps(_initialize("2025-06-18")).encode(),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        surrogate,
        b"this is not json",
        b'{"jsonrpc":"2.0","id":4,"method":"ping"}',
    ]
    answers = {json.dumps(a.get("id")): a for a in _raw_session(home_path, agent_token, lines)}
    assert answers["1"]["result"]["serverInfo"]["name"] == "groundnote"
    assert answers["2"]["error"]["code"] == -32700
    assert "lone surrogate" in answers["2"]["error"]["message"]
    assert answers["null"]["error"]["code"] == -32700
    assert "not JSON" in answers["null"]["error"]["message"]
    assert answers["4"]["result"] == {}  # the session goes on
    assert len(answers) == 4  # the SDK's own answer to initialize is not sent a second time


@pytest.mark.slow
async def test_a_revoked_grant_stops_at_once_on_stdio(runtime: Runtime, home_path: Path) -> None:
    runtime.home.create_scope("sales")
    _, token = create_grant(
        runtime.home.instance,
        "desk",
        rights={"sales": Right.READ},
        channels=["mcp"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    env = {**os.environ, "GROUNDNOTE_HOME": str(home_path)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "groundnote", "mcp", "--token", token], env=env
    )
    async with Client(params) as client:
        assert not (await client.call_tool("status", {"scope": "sales"})).is_error
        revoke_grant(runtime.home.instance, "desk", runtime.home.clock.instant())
        refused = await client.call_tool("status", {"scope": "sales"})
        assert refused.is_error
        assert mcp_body(refused)["error"] == "auth-required"
        with pytest.raises(MCPError) as listing:
            await client.list_tools()
        assert listing.value.error.data["error"] == "auth-required"


def test_an_expired_grant_stops_at_once(runtime: Runtime, clock: FixedClock) -> None:
    """What `groundnote mcp` serves with (checked_each_call), on a clock moved past expiry."""
    runtime.home.create_scope("sales")
    _, token = create_grant(
        runtime.home.instance,
        "brief",
        rights={"sales": Right.READ},
        channels=["mcp"],
        org="local",
        now=runtime.home.clock.instant(),
        expires_at="2026-11-30T10:00:00.000Z",
    )

    async def run() -> tuple[bool, dict[str, Any]]:
        async with Client(build_server(runtime, checked_each_call(runtime, token))) as client:
            before = await client.call_tool("status", {"scope": "sales"})
            clock.moment = datetime(2026, 11, 30, 10, 0, 1, tzinfo=UTC)
            after = await client.call_tool("status", {"scope": "sales"})
        return before.is_error, mcp_body(after)

    refused_before, after = anyio.run(run)
    assert refused_before is False
    assert after["error"] == "auth-required"
