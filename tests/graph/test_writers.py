"""Writers and their errors (seed 000 §4, §8) through the registry, with status and body."""

from __future__ import annotations

from typing import Any

import pytest

from groundnote.auth import Right
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from tests.conftest import Call, make_principal
from tests.graph.helpers import archive, log_rows


def refusal(call: Call, capability: str, **raw: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(GroundnoteError) as exc:
        call(capability, **raw)
    body = exc.value.body()
    assert body["remedy"] and isinstance(body["next"], list) and len(body["next"]) <= 3
    return exc.value.status, body


@pytest.fixture
def org(call: Call) -> str:
    out = call("graph.entity_create", scope="sales", type="organisation", name="Nordlicht AG")
    entity: str = out["entity"]["id"]
    return entity


def create(
    call: Call, name: str, parent: str | None, type: str = "department", **extra: Any
) -> str:
    out = call(
        "graph.entity_create", scope="sales", type=type, name=name, parent_id=parent, **extra
    )
    entity: str = out["entity"]["id"]
    return entity


def test_create_answer(runtime: Runtime, call: Call, org: str) -> None:
    out = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vertrieb",
        aliases=["VT"],
        parent_id=org,
        evidence="source/mail:<a@x>",
    )
    entity = out["entity"]
    assert entity["id"] == "sales-e0002" and entity["status"] == "unconfirmed"
    assert entity["pending"] is True
    assert entity["approval_url"] == (
        "http://127.0.0.1:8765/approval/structure?scope=sales#sales-e0002"
    )
    assert [p["name"] for p in out["path"]] == ["Nordlicht AG", "Vertrieb"]
    assert [n["tool"] for n in out["next"]] == ["link_propose", "entity_tree"]
    rows = log_rows(runtime, "sales", "create_entity")
    assert len(rows) == 2 and all(r["outcome"] == "ok" for r in rows)
    # Both rows carry the same instant (a fixed clock); which one is this create's is its ref.
    assert any('"entity/sales-e0002"' in r["refs"] for r in rows)
    with runtime.home.scope_db("sales").read() as conn:
        version = conn.execute("SELECT * FROM entity_version WHERE id = 'sales-e0002'").fetchone()
        head = conn.execute("SELECT * FROM entity WHERE id = 'sales-e0002'").fetchone()
    assert (version["channel"], version["reason"], version["valid_from"]) == (
        "mcp",
        "created via mcp",
        "2026-11-30",
    )
    assert head["created_by"] == "agent"


def test_cli_and_api_are_recorded_as_api_import(runtime: Runtime, call: Call) -> None:
    call("graph.entity_create", channel="cli", scope="sales", type="topic", name="Preise")
    call("graph.entity_create", channel="api", scope="sales", type="topic", name="Rabatte")
    with runtime.home.scope_db("sales").read() as conn:
        rows = conn.execute(
            "SELECT e.created_by, v.channel FROM entity e JOIN entity_version v ON v.id = e.id"
        ).fetchall()
    assert {tuple(r) for r in rows} == {("import", "api")}


def test_create_errors(runtime: Runtime, call: Call, org: str) -> None:
    status, body = refusal(call, "graph.entity_create", scope="sales", type="planet", name="X")
    assert (status, body["error"]) == (400, "validation-failed")
    assert "organisation" in body["remedy"]
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="X",
        parent_id="sales-e0099",
    )
    assert (status, body["error"]) == (404, "reference-unknown")
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="X",
        parent_id="other-e0001",
    )
    assert (status, body["error"]) == (400, "scope-mismatch")
    sub = create(call, "Alt", org)
    archive(runtime, "sales", sub)
    status, body = refusal(
        call, "graph.entity_create", scope="sales", type="department", name="X", parent_id=sub
    )
    assert (status, body["error"]) == (409, "parent-archived")
    runtime.config.graph.max_depth = 2
    child = create(call, "Ebene zwei", org)
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Ebene drei",
        parent_id=child,
    )
    assert (status, body["error"], body["limit"]) == (422, "depth-limit", 2)


def test_duplicates(call: Call, org: str) -> None:
    create(call, "Vertrieb Nord", org)
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="vertrieb nord",
        parent_id=org,
        force=True,
        reason="x",
    )
    assert (status, body["error"]) == (409, "duplicate-candidate")
    assert body["candidates"][0]["path"] == ["Nordlicht AG", "Vertrieb Nord"]
    assert body["next"][0]["tool"] == "entity_path"
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vetrieb Nord",
        parent_id=org,
    )
    assert (status, body["error"]) == (409, "duplicate-candidate")
    assert body["candidates"][0]["match"] == "typo"
    status, body = refusal(
        call,
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vetrieb Nord",
        parent_id=org,
        force=True,
    )
    assert (status, body["error"]) == (400, "reason-missing")
    out = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vetrieb Nord",
        parent_id=org,
        force=True,
        reason="the person says it is the old spelling of another unit",
    )
    assert out["created"] and out["similar"] == []
    # another type is no duplicate
    assert call(
        "graph.entity_create", scope="sales", type="project", name="Vertrieb Nord", parent_id=org
    )["created"]


def test_move(runtime: Runtime, call: Call, org: str) -> None:
    a = create(call, "Abteilung A", org)
    b = create(call, "Team B", a, type="case")
    other = create(call, "Südwerk GmbH", None, type="organisation")
    same = call("graph.entity_move", scope="sales", id=a, parent_id=org)
    assert same["moved"] is False
    out = call("graph.entity_move", scope="sales", id=a, parent_id=other, reason="reorg")
    assert out["moved"] and out["subtree_size"] == 2
    assert [p["name"] for p in out["old_path"]] == ["Nordlicht AG", "Abteilung A"]
    assert [p["name"] for p in out["path"]] == ["Südwerk GmbH", "Abteilung A"]
    path = call("graph.entity_path", scope="sales", id=b)
    assert [p["name"] for p in path["path"]] == ["Südwerk GmbH", "Abteilung A", "Team B"]
    history = call("graph.entity_path", scope="sales", id=a)["versions"]
    assert [v["change"] for v in history] == ["create", "move"]
    assert history[1]["parent_id"] == other and history[1]["reason"] == "reorg"

    status, body = refusal(call, "graph.entity_move", scope="sales", id=a, parent_id=b)
    assert (status, body["error"]) == (409, "cycle")
    assert [p["name"] for p in body["paths"]["entity"]] == ["Südwerk GmbH", "Abteilung A"]
    assert [p["name"] for p in body["paths"]["target"]][-1] == "Team B"
    assert body["next"][0]["tool"] == "entity_path"
    status, body = refusal(call, "graph.entity_move", scope="sales", id=a, parent_id=a)
    assert body["error"] == "cycle"
    status, body = refusal(
        call, "graph.entity_move", scope="sales", id="sales-e0099", parent_id=None
    )
    assert (status, body["error"]) == (404, "not-found")
    create(call, "Abteilung A", org, force=True, reason="a new unit with the old name")
    status, body = refusal(call, "graph.entity_move", scope="sales", id=a, parent_id=org)
    assert (status, body["error"]) == (409, "duplicate-candidate")
    runtime.config.graph.max_depth = 3
    deep = create(call, "Tief", other)
    status, body = refusal(call, "graph.entity_move", scope="sales", id=a, parent_id=deep)
    assert (status, body["error"], body["limit"]) == (422, "depth-limit", 3)
    top = call("graph.entity_move", scope="sales", id=b, parent_id=None)
    assert [p["name"] for p in top["path"]] == ["Team B"]


def test_update(runtime: Runtime, call: Call, org: str) -> None:
    a = create(call, "Einkauf", org, aliases=["EK"])
    out = call(
        "graph.entity_update",
        scope="sales",
        id=a,
        name="Einkauf Zentral",
        aliases_add=["Zentraleinkauf"],
        aliases_remove=["EK"],
    )
    assert out["updated"] and out["entity"]["aliases"] == ["Zentraleinkauf"]
    assert (
        call("graph.entity_resolve", scope="sales", q="Zentraleinkauf")["candidates"][0]["match"]
        == "alias"
    )
    assert (
        call("graph.entity_update", scope="sales", id=a, name="Einkauf Zentral")["updated"] is False
    )
    status, body = refusal(
        call, "graph.entity_update", scope="sales", id=a, aliases_remove=["nope"]
    )
    assert (status, body["error"]) == (400, "validation-failed")
    create(call, "Lager", org)
    status, body = refusal(call, "graph.entity_update", scope="sales", id=a, name="lager")
    assert (status, body["error"]) == (409, "duplicate-candidate")
    status, body = refusal(call, "graph.entity_update", scope="sales", id=a, aliases_add=["Lagr"])
    assert body["error"] == "duplicate-candidate"
    forced = call(
        "graph.entity_update",
        scope="sales",
        id=a,
        aliases_add=["Lagr"],
        force=True,
        reason="a spelling used in mails about Einkauf",
    )
    assert "Lagr" in forced["entity"]["aliases"]
    versions = call("graph.entity_path", scope="sales", id=a)["versions"]
    assert [v["change"] for v in versions] == ["create", "update", "update"]


def test_tree(call: Call, org: str) -> None:
    depts = [
        create(call, f"Abteilung {i:02d}", org, force=True, reason="series") for i in range(55)
    ]
    for i in range(3):
        create(call, f"Gruppe {i}", depts[0], type="case", force=True, reason="series")
    first = call("graph.entity_tree", scope="sales", id=org)
    assert first["total"] == 55 and first["pages"] == 2 and len(first["nodes"]) == 50
    assert first["nodes"][0]["children"] == 3 and first["nodes"][0]["hidden_children"] == 3
    assert first["next"][0]["why"].startswith(f"expand {depts[0]}")
    second = call("graph.entity_tree", scope="sales", id=org, page=2)
    assert len(second["nodes"]) == 5
    deep = call("graph.entity_tree", scope="sales", id=org, depth=2)
    assert deep["nodes"][0]["hidden_children"] == 0 and len(deep["nodes"][0]["nodes"]) == 3
    assert deep["levels"] == {"1": 55, "2": 3}
    top = call("graph.entity_tree", scope="sales")
    assert [n["id"] for n in top["nodes"]] == [org] and top["entity"] is None
    assert call("graph.scope_tree", channel="api", scope="sales")["nodes"] == top["nodes"]
    status, body = refusal(call, "graph.entity_tree", scope="sales", id=org, depth=4)
    assert (status, body["error"], body["limit"]) == (422, "depth-limit", 3)


def test_tree_stops_at_two_hundred_nodes(call: Call, org: str) -> None:
    parents = [create(call, f"Bereich {i}", org, force=True, reason="series") for i in range(5)]
    for p, parent in enumerate(parents):
        for i in range(50):
            create(call, f"Stelle {p}-{i:02d}", parent, type="case", force=True, reason="series")
    out = call("graph.entity_tree", scope="sales", id=org, depth=2)
    shown = len(out["nodes"]) + sum(len(n["nodes"]) for n in out["nodes"])
    assert shown == 200
    assert out["nodes"][3]["hidden_children"] == 5 and out["nodes"][4]["hidden_children"] == 50


def test_rights_and_scope_refusal(runtime: Runtime, org: str) -> None:
    reader, _ = make_principal(runtime, "reader", {"sales": Right.READ}, ["mcp"])
    cap = runtime.registry.get("graph.entity_create")
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(
            cap, {"scope": "sales", "type": "topic", "name": "X"}, principal=reader, channel="mcp"
        )
    assert (exc.value.status, exc.value.code) == (403, "right-missing")
    resolve = runtime.registry.get("graph.entity_resolve")
    assert runtime.invoke(
        resolve, {"scope": "sales", "q": "Nordlicht"}, principal=reader, channel="mcp"
    )
    bodies = []
    for scope in ("other", "missing"):
        with pytest.raises(GroundnoteError) as exc:
            runtime.invoke(resolve, {"scope": scope, "q": "x"}, principal=reader, channel="mcp")
        bodies.append(exc.value.body())
    assert bodies[0] == bodies[1] and bodies[0]["error"] == "scope-not-allowed"
