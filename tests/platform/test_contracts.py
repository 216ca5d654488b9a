"""Generated contracts are pinned: a change to a public surface is a visible diff in review.

The reference pages (docs/) are regenerated and must equal the committed ones; the OpenAPI
document, the MCP tool list and the CLI help are compared with tests/snapshots/. After an
intended change: `groundnote docs` and `UPDATE_SNAPSHOTS=1 scripts/test tests/platform`. (Not
GROUNDNOTE_-prefixed: serve, started by tests/platform, reads such variables as its config.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import click
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

from groundnote.auth import Principal
from groundnote.capabilities.docs import write_docs
from groundnote.config import Config
from groundnote.domain.errors import error_classes
from groundnote.runtime import Runtime, build_registry
from groundnote.surfaces.cli.main import cli
from groundnote.surfaces.http import create_app
from groundnote.surfaces.http.approval import approval_registry
from groundnote.surfaces.mcp.server import build_server

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "tests" / "snapshots"


def _check(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, "utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_SNAPSHOTS=1"
    assert path.read_text("utf-8") == text, f"{name} changed; review it and update the snapshot"


def test_reference_pages_are_up_to_date(tmp_path: Path) -> None:
    written = write_docs([*build_registry(), *approval_registry()], Config(), tmp_path)
    committed = ROOT / "docs"
    for path in written:
        target = committed / path.relative_to(tmp_path)
        assert target.exists(), f"{target} is missing: run `groundnote docs`"
        assert target.read_text("utf-8") == path.read_text("utf-8"), (
            f"{target} is stale: run `groundnote docs`"
        )
    generated = {p.relative_to(tmp_path) for p in written}
    stale = {p.relative_to(committed) for p in (committed / "capabilities").glob("*.md")}
    assert stale <= generated, f"pages without a capability: {sorted(map(str, stale - generated))}"


def test_every_claim_names_a_test_that_exists() -> None:
    """A claim on a reference page must point at a real test, or the page would vouch for nothing."""
    claims = [c for cap in [*build_registry(), *approval_registry()] for c in cap.claims]
    assert claims
    for claim in claims:
        path, _, name = claim.test.partition("::")
        source = (ROOT / path).read_text("utf-8")
        assert f"def {name}(" in source, f"{claim.name}: no test {claim.test}"


def test_every_setting_is_documented() -> None:
    """docs/configuration.md is generated from the fields; each must say what it means."""
    missing = [
        line.split("`")[1]
        for line in (ROOT / "docs" / "configuration.md").read_text("utf-8").splitlines()
        if line.startswith("| `") and line.rstrip().endswith("|  |")
    ]
    assert missing == [], f"settings without a description: {missing}"


def test_every_error_code_is_documented() -> None:
    page = (ROOT / "docs" / "errors.md").read_text("utf-8")
    for cls in error_classes():
        assert f"`{cls.code}`" in page


def test_openapi_snapshot(runtime: Runtime) -> None:
    with TestClient(create_app(runtime)) as client:
        document = client.get("/openapi.json").json()
    _check(
        "openapi.json", json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    )
    operation_ids = {
        op["operationId"] for path in document["paths"].values() for op in path.values()
    }
    assert {cap.name for cap in build_registry() if cap.http} <= operation_ids


def test_mcp_tools_snapshot(runtime: Runtime, agent: Principal) -> None:
    async def listing() -> dict[str, Any]:
        async with Client(build_server(runtime, lambda _ctx: agent)) as client:
            tools = (await client.list_tools()).tools
            prompts = (await client.list_prompts()).prompts
        return {
            "tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools],
            "prompts": [
                p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in prompts
            ],
        }

    data = anyio.run(listing)
    _check("mcp_tools.json", json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    for tool in data["tools"]:
        assert tool["inputSchema"]["additionalProperties"] is False, tool["name"]
        assert set(tool["annotations"]) >= {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }


def _commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    found = [prefix]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _commands(command, [*prefix, name])
        else:
            found.append([*prefix, name])
    return found


def test_cli_help_snapshot() -> None:
    runner = CliRunner()
    parts = []
    for path in _commands(cli, []):
        result = runner.invoke(cli, [*path, "--help"], terminal_width=100)
        assert result.exit_code == 0, path
        parts.append(f"$ groundnote {' '.join(path)} --help\n{result.output}")
    _check("cli_help.txt", "\n".join(parts))
