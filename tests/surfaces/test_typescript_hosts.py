"""MCP as most hosts see it: the official TypeScript SDK and the MCP Inspector CLI (both pinned
in tests/surfaces/node/package.json; `npm ci` there installs them, .ci/run does it) drive
Groundnote over stdio and over streamable HTTP (a real uvicorn).

The TypeScript client validates structured content against a tool's output schema, which the
Python client does not; so only here does a refusal prove that its whole body (error, remedy,
next, candidates) reaches the agent rather than a -32602 schema error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from groundnote.runtime import Runtime

pytestmark = pytest.mark.slow

NODE_DIR = Path(__file__).parent / "node"
INSPECTOR = NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"


def _node() -> str:
    node = shutil.which("node")
    assert node is not None, "node is needed for the TypeScript host tests"
    assert INSPECTOR.exists(), f"run `npm ci` in {NODE_DIR} (.ci/run does) to install the SDKs"
    return node


def _stdio_command(home: Path, token: str) -> list[str]:
    return [sys.executable, "-m", "groundnote", "--home", str(home), "mcp", "--token", token]


def _run(command: list[str], home: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GROUNDNOTE_HOME": str(home), "MCP_CATALOG_PATH": str(tmp_path / "c.json")}
    return subprocess.run(
        command, cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _drive(args: list[str], home: Path, tmp_path: Path) -> dict[str, Any]:
    done = _run([_node(), "drive.mjs", *args], home, tmp_path)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def _assert_host_sees_everything(seen: dict[str, Any]) -> None:
    names = {t["name"] for t in seen["tools"]}
    assert {"entity_create", "entity_resolve", "entity_path"} <= names
    assert all(t["title"] for t in seen["tools"]), "every tool has a title"
    assert "entity_resolve" in seen["instructions"]

    created = seen["created"]["result"]
    assert not created.get("isError")
    assert created["structuredContent"]["created"] is True
    entity_id = created["structuredContent"]["entity"]["id"]

    # The refusal arrives as a result, not as an SDK exception, with its whole body.
    assert "thrown" not in seen["refused"], seen["refused"]
    refused = seen["refused"]["result"]
    assert refused["isError"] is True
    assert "structuredContent" not in refused
    body = json.loads(refused["content"][0]["text"])
    assert body["error"] == "duplicate-candidate"
    assert "force" in body["remedy"]
    assert body["candidates"][0]["id"] == entity_id
    assert body["next"][0]["tool"] == "entity_path"
    assert body["next"][0]["arguments"] == {"scope": "sales", "id": entity_id}

    uris = [r["uri"] for r in seen["resources"]["result"]["resources"]]
    assert "groundnote://sales/tree" in uris
    assert f"groundnote://sales/entities/{entity_id}" in uris
    assert "Müller Logistik GmbH" in seen["tree"]["result"]["contents"][0]["text"]
    assert seen["foreign"]["thrown"]["data"]["error"] == "scope-not-allowed"


def test_typescript_sdk_over_stdio(
    runtime: Runtime, scope: str, home_path: Path, agent_token: str, tmp_path: Path
) -> None:
    seen = _drive(["stdio", *_stdio_command(home_path, agent_token)], home_path, tmp_path)
    _assert_host_sees_everything(seen)


def test_typescript_sdk_over_streamable_http(
    live_server: str, home_path: Path, agent_token: str, tmp_path: Path
) -> None:
    seen = _drive(["http", f"{live_server}/mcp", agent_token], home_path, tmp_path)
    _assert_host_sees_everything(seen)


def _inspector(
    target: list[str], method: list[str], home: Path, tmp_path: Path, *, refused: bool = False
) -> dict[str, Any]:
    done = _run([_node(), str(INSPECTOR), "--cli", *target, *method], home, tmp_path)
    # The Inspector prints the result either way and exits 5 for an isError result.
    assert done.returncode == (5 if refused else 0), done.stdout + done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_mcp_inspector_cli(
    transport: str,
    live_server: str,
    home_path: Path,
    agent_token: str,
    tmp_path: Path,
) -> None:
    target = (
        _stdio_command(home_path, agent_token)
        if transport == "stdio"
        else [
            "--transport",
            "http",
            "--server-url",
            f"{live_server}/mcp",
            "--header",
            f"Authorization: Bearer {agent_token}",
        ]
    )
    listed = _inspector(target, ["--method", "tools/list"], home_path, tmp_path)
    assert "entity_create" in {t["name"] for t in listed["tools"]}
    create = [
        "--method",
        "tools/call",
        "--tool-name",
        "entity_create",
        "--tool-arg",
        "scope=sales",
        "type=organisation",
        "name=Müller Logistik GmbH",
    ]
    created = _inspector(target, create, home_path, tmp_path)
    assert created["structuredContent"]["created"] is True
    refused = _inspector(target, create, home_path, tmp_path, refused=True)
    assert refused["isError"] is True
    body = json.loads(refused["content"][0]["text"])
    assert body["error"] == "duplicate-candidate"
    assert body["remedy"] and body["next"][0]["tool"] == "entity_path"
    assert body["next"][0]["arguments"]["id"] == created["structuredContent"]["entity"]["id"]
