"""What a host is shown before the first call: per-grant tools/list within its budget, a title
on every tool, instructions covering every tool family, and answers valid against their
(compact) output schemas."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import jsonschema
from mcp import Client

from groundnote.auth import Right
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.instructions import INSTRUCTIONS
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import make_principal

BUDGET = 40_000  # DESIGN §13: tools/list for a grant with every right


def _listing(runtime: Runtime, name: str, rights: dict[str, Right]) -> list[dict[str, Any]]:
    principal, _ = make_principal(runtime, name, rights, ["mcp"])

    async def run() -> list[dict[str, Any]]:
        async with Client(build_server(runtime, lambda _ctx: principal)) as client:
            tools = (await client.list_tools()).tools
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]

    return anyio.run(run)


def test_a_read_grant_is_shown_only_tools_it_can_use(runtime: Runtime, scope: str) -> None:
    read = {t["name"]: t for t in _listing(runtime, "reader", {scope: Right.READ})}
    propose = {t["name"] for t in _listing(runtime, "proposer", {scope: Right.PROPOSE})}
    assert {"search", "entity_resolve", "entity_path"} <= set(read)
    assert not {"entity_create", "propose_rule", "link_propose", "concept_create"} & set(read)
    assert all(t["annotations"]["readOnlyHint"] for t in read.values())
    assert set(read) < propose
    assert {"entity_create", "propose_rule", "store_source", "concept_link"} <= propose
    offered = {cap.mcp.tool for cap in runtime.registry if cap.mcp}
    assert propose == offered  # no MCP tool needs more than propose


def test_every_right_fits_the_budget_with_a_title_on_every_tool(
    runtime: Runtime, scope: str
) -> None:
    tools = _listing(runtime, "everything", {"*": Right.DECIDE})
    wire = json.dumps({"tools": tools}, ensure_ascii=False, separators=(",", ":"))
    assert len(wire) <= BUDGET, f"tools/list is {len(wire):,} characters"
    for tool in tools:
        assert tool["title"] and tool["title"][0].isupper(), tool["name"]
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


def test_the_instructions_cover_every_tool_family(runtime: Runtime) -> None:
    families = re.findall(r"\b(\w+)_\*", INSTRUCTIONS)
    assert families
    for cap in runtime.registry:
        if cap.mcp is None:
            continue
        tool = cap.mcp.tool
        named = re.search(rf"\b{tool}\b", INSTRUCTIONS) is not None
        assert named or any(tool.startswith(f + "_") for f in families), tool
        # the words of the implementation, which an agent cannot act on
        for internal in ("_write shape", "concept_create_write", "derivation status"):
            assert internal not in cap.description, (tool, internal)


def test_answers_validate_against_their_output_schemas(runtime: Runtime, scope: str) -> None:
    """What the TypeScript SDK checks on every answer, here for a spread of tools."""
    principal, _ = make_principal(runtime, "writer", {scope: Right.PROPOSE}, ["mcp"])
    calls = [
        ("list_scopes", {}),
        ("status", {"scope": scope}),
        ("entity_create", {"scope": scope, "type": "organisation", "name": "Kessler AG"}),
        ("entity_resolve", {"scope": scope, "q": "Kesler"}),
        ("entity_tree", {"scope": scope}),
        ("entity_path", {"scope": scope, "id": f"{scope}-e0001"}),
        ("link_list", {"scope": scope, "ref": f"entity/{scope}-e0001"}),
        ("search", {"scope": scope, "query": "Rabatt"}),
    ]

    async def run() -> None:
        async with Client(build_server(runtime, lambda _ctx: principal)) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            for tool, raw in calls:
                result = await client.call_tool(tool, raw)
                assert not result.is_error, result.content
                jsonschema.validate(result.structured_content, schemas[tool])

    anyio.run(run)
