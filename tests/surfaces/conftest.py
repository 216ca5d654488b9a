"""Every surface in-process, plus real processes for the end-to-end tests.

`surface_call(surface, tool_or_capability, input)` returns `(ok, body)` the same way for
direct, HTTP (ASGI), MCP (in-process client) and CLI (click runner), so a test can demand
the same answer from all of them.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

from groundnote.auth import Principal
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from groundnote.surfaces.http import create_app
from groundnote.surfaces.http.server import uvicorn_config
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import mcp_body

SURFACES = ["direct", "http", "mcp", "cli"]
SurfaceCall = Callable[[str, str, dict[str, Any], str], tuple[bool, dict[str, Any]]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def http(runtime: Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(runtime), base_url="http://127.0.0.1:8765") as client:
        yield client


def _mcp_call(
    runtime: Runtime, principal: Principal, tool: str, raw: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
    async def run() -> tuple[bool, dict[str, Any]]:
        async with Client(build_server(runtime, lambda _ctx: principal)) as client:
            result = await client.call_tool(tool, raw)
            return (not result.is_error), mcp_body(result)

    return anyio.run(run)


@pytest.fixture
def surface_call(runtime: Runtime, http: TestClient, home_path: Path) -> SurfaceCall:
    """(surface, capability name, input, token) → (ok, body)."""

    def invoke(
        surface: str, name: str, raw: dict[str, Any], token: str
    ) -> tuple[bool, dict[str, Any]]:
        cap = runtime.registry.get(name)
        if surface == "direct":
            try:
                out = runtime.invoke(cap, raw, principal=runtime.authenticate(token), channel="mcp")
            except GroundnoteError as exc:
                return False, exc.body()
            return True, out.model_dump(mode="json")
        if surface == "http":
            assert cap.http is not None
            path = cap.http.path.format(**raw)
            rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.http.path}
            headers = {"Authorization": f"Bearer {token}"}
            if cap.http.method == "GET":
                response = http.get(path, params=rest, headers=headers)
            else:
                response = http.request(cap.http.method, path, json=rest, headers=headers)
            return response.status_code < 400, response.json()
        if surface == "mcp":
            assert cap.mcp is not None
            principal = runtime.authenticate(token)
            assert principal is not None
            return _mcp_call(runtime, principal, cap.mcp.tool, raw)
        assert surface == "cli" and cap.cli is not None
        args = [
            "--home",
            str(home_path),
            "--token",
            token,
            *cap.cli.path,
            "--json",
            json.dumps(raw),
            "--output",
            "json",
        ]
        result = CliRunner().invoke(cli, args)
        # An answer is printed on stdout (also when its verdict makes the command exit 1);
        # a refusal on stderr.
        text = result.stdout if result.stdout.strip() else result.stderr
        return result.exit_code == 0, json.loads(text)

    return invoke


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(runtime: Runtime) -> Iterator[str]:
    """A real uvicorn on a loopback port, serving the runtime's app; yields the base URL."""
    port = free_port()
    config = uvicorn_config(create_app(runtime), "127.0.0.1", port, runtime.config.server)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start within 10 s")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
