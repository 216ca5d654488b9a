"""Every error code of seed 000 §4 and §8, produced over the MCP client and over HTTP alike,
with the status of DESIGN §5.4 and the guidance the body must carry."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundnote.auth import Principal, Right
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry
from tests.conftest import Call, make_principal
from tests.surfaces.conftest import SurfaceCall

SURFACES = ["mcp", "http"]
STATUS = {
    "validation-failed": 400,
    "reason-missing": 400,
    "scope-mismatch": 400,
    "scope-not-allowed": 403,
    "right-missing": 403,
    "reference-unknown": 404,
    "duplicate-candidate": 409,
    "cycle": 409,
    "parent-archived": 409,
    "depth-limit": 422,
}


@pytest.fixture
def tree(call: Call, scope: str) -> dict[str, str]:
    """Vertrieb › Vertrieb Nord › Team Hamburg, plus an archived Altbestand."""

    def create(name: str, parent: str | None, type: str = "department") -> str:
        out = call("graph.entity_create", scope=scope, type=type, name=name, parent_id=parent)
        return str(out["entity"]["id"])

    top = create("Vertrieb", None, "organisation")
    north = create("Vertrieb Nord", top)
    team = create("Team Hamburg", north)
    old = create("Altbestand Lager", None, "object")
    return {"top": top, "north": north, "team": team, "old": old}


def _archive(runtime: Runtime, scope: str, entity_id: str) -> None:
    person = Principal(
        id="person:ruth",
        org="local",
        channels=frozenset({"approval"}),
        rights={"*": Right.DECIDE},
        identity="ruth@example.org",
    )
    registry = approval_registry()
    with runtime.home.scope_db(scope).read() as conn:
        version = conn.execute(
            "SELECT max(version) FROM entity_version WHERE id = ?", (entity_id,)
        ).fetchone()[0]
    registry.invoke(
        runtime.home,
        runtime.config,
        registry.get("structure.archive"),
        {"id": entity_id, "version": version, "reason": "closed"},
        principal=person,
        channel="approval",
    )


def _refused(
    surface_call: SurfaceCall,
    surface: str,
    name: str,
    raw: dict[str, Any],
    token: str,
    code: str,
) -> dict[str, Any]:
    ok, body = surface_call(surface, name, raw, token)
    assert not ok, body
    assert body["error"] == code, body
    assert body["remedy"] and isinstance(body["next"], list) and len(body["next"]) <= 3
    return body


@pytest.mark.parametrize("surface", SURFACES)
def test_every_graph_refusal_on_both_surfaces(
    surface: str,
    surface_call: SurfaceCall,
    agent_token: str,
    runtime: Runtime,
    scope: str,
    tree: dict[str, str],
    http: TestClient,
) -> None:
    _archive(runtime, scope, tree["old"])
    runtime.home.create_scope("hr")
    cases: list[tuple[str, str, dict[str, Any]]] = [
        (
            "validation-failed",
            "graph.entity_create",
            {"scope": scope, "type": "spaceship", "name": "X"},
        ),
        (
            "reason-missing",
            "graph.entity_create",
            {
                "scope": scope,
                "type": "department",
                "name": "Vertrieb Nordd",
                "parent_id": tree["top"],
                "force": True,
            },
        ),
        (
            "duplicate-candidate",
            "graph.entity_create",
            {
                "scope": scope,
                "type": "department",
                "name": "Vertrieb Nordd",
                "parent_id": tree["top"],
            },
        ),
        (
            "reference-unknown",
            "graph.entity_create",
            {"scope": scope, "type": "department", "name": "Neu", "parent_id": f"{scope}-e9999"},
        ),
        (
            "scope-mismatch",
            "graph.entity_create",
            {"scope": scope, "type": "department", "name": "Neu", "parent_id": "hr-e0001"},
        ),
        (
            "parent-archived",
            "graph.entity_create",
            {"scope": scope, "type": "object", "name": "Regal 4", "parent_id": tree["old"]},
        ),
        (
            "cycle",
            "graph.entity_move",
            {"scope": scope, "id": tree["top"], "parent_id": tree["team"]},
        ),
        ("depth-limit", "graph.entity_tree", {"scope": scope, "id": tree["top"], "depth": 4}),
        ("scope-not-allowed", "graph.entity_resolve", {"scope": "hr", "q": "Vertrieb"}),
    ]
    bodies = {}
    for code, name, raw in cases:
        bodies[code] = _refused(surface_call, surface, name, raw, agent_token, code)
        if surface == "http":
            cap = runtime.registry.get(name)
            assert cap.http is not None
            path = cap.http.path.format(**raw)
            rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.http.path}
            headers = {"Authorization": f"Bearer {agent_token}"}
            response = (
                http.get(path, params=rest, headers=headers)
                if cap.http.method == "GET"
                else http.request(cap.http.method, path, json=rest, headers=headers)
            )
            assert response.status_code == STATUS[code], (code, response.text)

    assert bodies["duplicate-candidate"]["candidates"][0]["name"] == "Vertrieb Nord"
    assert bodies["duplicate-candidate"]["candidates"][0]["path"]
    assert [p["name"] for p in bodies["cycle"]["paths"]["entity"]] == ["Vertrieb"]
    assert [p["name"] for p in bodies["cycle"]["paths"]["target"]] == [
        "Vertrieb",
        "Vertrieb Nord",
        "Team Hamburg",
    ]
    assert bodies["depth-limit"]["limit"] == 3

    reader = make_principal(runtime, "reader", {scope: Right.READ}, ["mcp", "api"])[1]
    _refused(
        surface_call,
        surface,
        "graph.entity_create",
        {"scope": scope, "type": "department", "name": "Neu"},
        reader,
        "right-missing",
    )
