"""MCP resources read with the grant's rights: across two scopes nothing of the foreign one is
listed or readable, and a foreign scope reads like a missing one; lists and trees page."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from groundnote.auth import LOCAL_OPERATOR, Principal, Right
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.resources import PAGE
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import make_principal


def _create(runtime: Runtime, scope: str, name: str, parent: str | None = None) -> str:
    raw = {"scope": scope, "type": "organisation" if parent is None else "department"}
    raw |= {"name": name, "parent_id": parent, "force": True, "reason": "test"}
    cap = runtime.registry.get("graph.entity_create")
    out = runtime.invoke(cap, raw, principal=LOCAL_OPERATOR, channel="cli")
    return str(out.model_dump()["entity"]["id"])


@pytest.fixture
def two_scopes(runtime: Runtime) -> Principal:
    for scope in ("sales", "hr"):
        runtime.home.create_scope(scope)
    top = _create(runtime, "sales", "Kessler AG")
    for n in range(3):
        _create(runtime, "sales", f"Abteilung {n}", top)
    for n in range(PAGE + 5):  # more top-level entities than one page of resources/list holds
        _create(runtime, "sales", f"Kunde {n:03d} GmbH")
    _create(runtime, "hr", "Geheim GmbH")
    return make_principal(runtime, "reader", {"sales": Right.READ}, ["mcp"])[0]


def test_resources_show_only_the_grants_scope_and_page(
    runtime: Runtime, two_scopes: Principal
) -> None:
    async def run() -> dict[str, Any]:
        async with Client(build_server(runtime, lambda _ctx: two_scopes)) as client:
            first = await client.list_resources()
            second = await client.list_resources(cursor=first.next_cursor)
            templates = await client.list_resource_templates()
            tree = await client.read_resource("groundnote://sales/tree/sales-e0001")
            entity = await client.read_resource("groundnote://sales/entities/sales-e0002")
            refusals = []
            for uri in (
                "groundnote://hr/tree",
                "groundnote://hr/entities/hr-e0001",
                "groundnote://nope/tree",
            ):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                refusals.append(refused.value.error)
            return {
                "first": first,
                "second": second,
                "templates": templates,
                "tree": tree,
                "entity": entity,
                "refusals": refusals,
            }

    seen = anyio.run(run)
    uris = [r.uri for r in seen["first"].resources + seen["second"].resources]
    assert len(seen["first"].resources) == PAGE and seen["first"].next_cursor
    assert seen["second"].next_cursor is None
    assert "groundnote://sales/tree" in uris
    assert "groundnote://sales/entities/sales-e0001" in uris
    assert len(uris) == len(set(uris)) == 1 + 1 + PAGE + 5
    assert not any("hr" in uri.split("/")[2] for uri in uris)
    assert {t.uri_template for t in seen["templates"].resource_templates} >= {
        "groundnote://{scope}/tree{?page}",
        "groundnote://{scope}/entities/{id}",
        "groundnote://{scope}/rules/{id}",
    }
    assert '"Abteilung 0"' in seen["tree"].contents[0].text
    assert '"Kessler AG"' in seen["entity"].contents[0].text
    foreign, foreign_entity, missing = seen["refusals"]
    assert foreign.data["error"] == missing.data["error"] == "scope-not-allowed"
    assert foreign.message == missing.message
    assert foreign_entity.data["error"] == "scope-not-allowed"
    assert "Geheim" not in str(seen)


def test_a_tree_resource_pages(runtime: Runtime, two_scopes: Principal) -> None:
    async def run() -> tuple[str, str]:
        async with Client(build_server(runtime, lambda _ctx: two_scopes)) as client:
            one = await client.read_resource("groundnote://sales/tree")
            two = await client.read_resource("groundnote://sales/tree?page=2")
        return one.contents[0].text, two.contents[0].text

    one, two = anyio.run(run)
    assert '"page": 1' in one and '"pages": 2' in one and "Kunde 000 GmbH" in one
    assert '"page": 2' in two and "Kunde 054 GmbH" in two and "Kunde 000 GmbH" not in two
