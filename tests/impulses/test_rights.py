"""The three calls issue #13 measured with a grant holding only `sales:read`: each ran, though
its declared right is propose. The right in the organisation is the strongest a grant holds."""

from __future__ import annotations

import json

import anyio
import httpx
from click.testing import CliRunner
from mcp import Client

from groundnote.auth import Right
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import make_principal, mcp_body
from tests.impulses.conftest import count


def test_a_read_grant_cannot_upsert_a_concept_over_mcp(runtime: Runtime, scope: str) -> None:
    reader, _ = make_principal(runtime, "reader", {scope: Right.READ}, ["mcp"])

    async def call() -> tuple[bool, dict[str, object]]:
        async with Client(build_server(runtime, lambda _ctx: reader)) as client:
            result = await client.call_tool(
                "concept_upsert_by_signature", {"pointer_type": "mail", "shape": "x"}
            )
        return result.is_error, mcp_body(result)

    refused, body = anyio.run(call)
    assert refused and body["error"] == "right-missing"
    assert count(runtime, "concept") == 0


def test_a_read_grant_cannot_prune_on_the_command_line(
    runtime: Runtime, scope: str, home_path: object
) -> None:
    _, token = make_principal(runtime, "reader", {scope: Right.READ}, ["cli"])
    result = CliRunner().invoke(
        cli, ["--home", str(home_path), "--token", token, "impulses", "prune", "--output", "json"]
    )
    assert result.exit_code == 1
    assert json.loads(result.stderr)["error"] == "right-missing"


def test_a_read_grant_cannot_write_through_the_resolve_endpoint(
    runtime: Runtime, scope: str, live_server: str
) -> None:
    _, token = make_principal(runtime, "reader", {scope: Right.READ}, ["api"])
    pointer = {"type": "conceptSignatureUpsert_write", "pointer_type": "mail", "shape": "x"}
    response = httpx.post(
        f"{live_server}/v2/impulses/resolve",
        json={"pointer": pointer},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 403
    assert response.json()["success"] is False and "propose" in response.json()["error"]
    assert count(runtime, "concept") == 0


def test_a_propose_grant_on_one_scope_writes_in_its_organisation(
    runtime: Runtime, scope: str, live_server: str
) -> None:
    _, token = make_principal(runtime, "writer", {scope: Right.PROPOSE}, ["api"])
    pointer = {"type": "conceptSignatureUpsert_write", "pointer_type": "mail", "shape": "x"}
    response = httpx.post(
        f"{live_server}/v2/impulses/resolve",
        json={"pointer": pointer},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200 and response.json()["success"] is True
    assert count(runtime, "concept") == 1
