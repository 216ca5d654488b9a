"""Links (§4, §6, DESIGN §8.1–8.2) and the agent-style scenario of issue 4, through `call`."""

from __future__ import annotations

from typing import Any

import pytest

from groundnote.domain.errors import GroundnoteError
from groundnote.graph import entities_linked_to_rule
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.graph.helpers import archive, store_mail, store_rule


def refused(call: Call, capability: str, **raw: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(GroundnoteError) as exc:
        call(capability, **raw)
    return exc.value.status, exc.value.body()


def test_agent_scenario(runtime: Runtime, call: Call) -> None:
    org = call("graph.entity_create", scope="sales", type="organisation", name="Nordlicht GmbH")[
        "entity"
    ]["id"]
    sales = call(
        "graph.entity_create", scope="sales", type="department", name="Vertrieb", parent_id=org
    )["entity"]["id"]
    # resolve finds nothing → find the parent with tree → create
    found = call("graph.entity_resolve", scope="sales", q="Projekt Polarstern")
    assert found["candidates"] == [] and found["next"][0]["tool"] == "entity_tree"
    top = call("graph.entity_tree", scope="sales")
    assert top["nodes"][0]["id"] == org and top["nodes"][0]["hidden_children"] == 1
    below = call("graph.entity_tree", scope="sales", id=top["nodes"][0]["id"])
    assert below["nodes"][0]["id"] == sales
    project = call(
        "graph.entity_create",
        scope="sales",
        type="project",
        name="Projekt Polarstern",
        parent_id=sales,
    )["entity"]
    # a similar name under the same parent is refused with candidates and paths; under
    # another parent it is created and the answer shows the candidate
    status, body = refused(
        call,
        "graph.entity_create",
        scope="sales",
        type="project",
        name="Projekt Polarsten",
        parent_id=sales,
    )
    assert (status, body["error"]) == (409, "duplicate-candidate")
    assert body["candidates"][0]["path"] == ["Nordlicht GmbH", "Vertrieb", "Projekt Polarstern"]
    second = call(
        "graph.entity_create",
        scope="sales",
        type="project",
        name="Projekt Polarsten",
        parent_id=org,
    )
    assert second["created"]
    assert [c["id"] for c in second["similar"]] == [project["id"]]
    assert second["next"][-1]["tool"] == "entity_path"
    # move shows old and new path
    moved = call("graph.entity_move", scope="sales", id=second["entity"]["id"], parent_id=sales)
    assert [p["name"] for p in moved["old_path"]] == ["Nordlicht GmbH", "Projekt Polarsten"]
    assert [p["name"] for p in moved["path"]] == ["Nordlicht GmbH", "Vertrieb", "Projekt Polarsten"]
    # link a stored mail to the entity with a confidence
    mail = store_mail(runtime, "sales", "angebot-1@kunde.de", "Angebot Polarstern")
    link = call(
        "graph.link_propose",
        scope="sales",
        from_ref=f"source/{mail}",
        to_ref=f"entity/{project['id']}",
        type="concerns",
        confidence=0.8,
        reason="the subject names Polarstern",
    )
    assert link["created"] and link["link"]["status"] == "proposed"
    assert [p["name"] for p in link["path"]][-1] == "Projekt Polarstern"
    again = call(
        "graph.link_propose",
        scope="sales",
        from_ref=f"source/{mail}",
        to_ref=f"entity/{project['id']}",
        type="concerns",
        confidence=0.9,
        reason="again",
    )
    assert again["created"] is False and again["link"]["id"] == link["link"]["id"]
    # link_list grouped on the parent: counted only from the configured minimum (G5)
    grouped = call("graph.link_list", scope="sales", ref=f"entity/{org}", grouped=True)
    assert grouped["groups"] == []
    runtime.config.graph.proposed_min_confidence = 0.7
    grouped = call("graph.link_list", scope="sales", ref=f"entity/{org}", grouped=True)
    entry = grouped["groups"][0]["entries"][0]
    assert grouped["groups"][0]["kind"] == "source"
    assert (entry["ref"], entry["kind"], entry["proposed"]) == (f"source/{mail}", "mail", True)
    assert entry["via"] == ["Nordlicht GmbH", "Vertrieb", "Projekt Polarstern"]


def test_link_errors(runtime: Runtime, call: Call) -> None:
    ent = call("graph.entity_create", scope="sales", type="project", name="Eisbrecher")["entity"][
        "id"
    ]
    mail = "source/" + store_mail(runtime, "sales", "m1@x", "Hallo")
    ok = {
        "scope": "sales",
        "from_ref": mail,
        "to_ref": f"entity/{ent}",
        "type": "concerns",
        "confidence": 0.5,
        "reason": "named in the subject",
    }
    assert refused(call, "graph.link_propose", **{**ok, "reason": " "})[1]["error"] == (
        "reason-missing"
    )
    status, body = refused(call, "graph.link_propose", **{**ok, "from_ref": "source/mail:<no@x>"})
    assert (status, body["error"]) == (404, "reference-unknown")
    status, body = refused(call, "graph.link_propose", **{**ok, "to_ref": "entity/other-e0001"})
    assert (status, body["error"]) == (400, "scope-mismatch")
    status, body = refused(call, "graph.link_propose", **{**ok, "type": "same_as"})
    assert (status, body["error"]) == (400, "validation-failed")
    status, body = refused(call, "graph.link_propose", **{**ok, "type": "replies_to"})
    assert (status, body["error"]) == (400, "validation-failed")
    rule = store_rule(runtime, "sales", "Rabatt max 5 %", [mail])
    with runtime.home.scope_db("sales").write() as conn:
        conn.execute(
            "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, "
            "decided_at, channel) VALUES (1, ?, 'reject', 'no', 'person:ruth', "
            "'2026-11-30T09:00:00.000Z', 'approval')",
            (rule,),
        )
    status, body = refused(call, "graph.link_propose", **{**ok, "from_ref": f"rule/{rule}"})
    assert (status, body["error"]) == (404, "not-found")
    archive(runtime, "sales", ent)
    status, body = refused(call, "graph.link_propose", **ok)
    assert (status, body["error"]) == (404, "reference-unknown")
    assert "archived" in body["remedy"]


def test_computed_links_and_rule_entities(runtime: Runtime, call: Call) -> None:
    first = store_mail(runtime, "sales", "a@x", "Anfrage", attachments=1)
    reply = store_mail(runtime, "sales", "b@x", "Re: Anfrage", in_reply_to="<a@x>")
    old = store_rule(runtime, "sales", "Lieferung frei ab 500 EUR", [f"source/{first}"])
    new = store_rule(
        runtime, "sales", "Lieferung frei ab 400 EUR", [f"attachment/{first}#1"], supersedes=old
    )
    links = call("graph.link_list", scope="sales", ref=f"source/{first}")["links"]
    kinds = {(lk["type"], lk["from_ref"], lk["to_ref"]) for lk in links}
    assert ("replies_to", f"source/{reply}", f"source/{first}") in kinds
    assert ("attachment_of", f"attachment/{first}#1", f"source/{first}") in kinds
    assert ("sourced_from", f"rule/{old}", f"source/{first}") in kinds
    assert ("sourced_from", f"rule/{new}", f"source/{first}") in kinds
    assert all(lk["id"] is None and lk["origin"] == "deterministic" for lk in links)
    rule_links = call("graph.link_list", scope="sales", ref=f"rule/{new}")["links"]
    assert ("supersedes", f"rule/{new}", f"rule/{old}") in {
        (lk["type"], lk["from_ref"], lk["to_ref"]) for lk in rule_links
    }

    ent = call("graph.entity_create", scope="sales", type="customer", name="Kunde Ost")
    call(
        "graph.link_propose",
        scope="sales",
        from_ref=f"rule/{new}",
        to_ref=f"entity/{ent['entity']['id']}",
        type="concerns",
        confidence=0.6,
        reason="names it",
    )
    with runtime.home.scope_db("sales").read() as conn:
        assert entities_linked_to_rule(conn, new, None, "2026-12-01T00:00:00.000Z") == []
        linked = entities_linked_to_rule(conn, new, 0.5, "2026-12-01T00:00:00.000Z")
    assert [e.name for e in linked] == ["Kunde Ost"] and linked[0].proposed
