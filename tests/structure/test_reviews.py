"""Every review transition and refusal, through the HTTP route POST /v1/reviews."""

from __future__ import annotations

import pytest

from groundnote.runtime import Runtime
from groundnote.store.sql import IntegrityError
from tests.conftest import make_principal
from tests.structure.helpers import AgentWrites, Approver, current, path_names


def test_confirm_a_create_makes_it_active_and_a_second_review_is_already_decided(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    response = approver.review(f"entity/{north}@1", "confirm")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["review"] == {
        "id": "sales-r0001",
        "target": f"entity/{north}@1",
        "verdict": "confirm",
        "by": "person:ruth",
        "at": "2026-11-30T09:00:00.000Z",
        "reason": None,
        "new_version": 2,
    }
    assert body["entity"]["status"] == "active"
    assert body["entity"]["pending"] is False and body["entity"]["approval_url"] is None
    assert [p["name"] for p in body["path"]] == ["Vertrieb Nord"]
    row = current(runtime, north)
    assert (row["version"], row["change"], row["channel"], row["changed_by"]) == (
        2,
        "confirm",
        "approval",
        "person:ruth",
    )

    again = approver.review(f"entity/{north}@1", "confirm")
    assert again.status_code == 409
    assert again.json()["error"] == "already-decided"


def test_review_of_an_older_version_is_version_outdated_naming_the_current(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    south = agent_writes.create("Vertrieb Süd")
    agent_writes.move(north, south)
    response = approver.review(f"entity/{north}@1", "confirm")
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "version-outdated"
    assert body["current"] == f"entity/{north}@2"
    assert f"entity/{north}@2" in body["message"]


def test_revert_of_a_move_brings_the_path_back_as_a_new_version(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    sales = agent_writes.create("Vertrieb", type="organisation")
    north = agent_writes.create("Nord", sales)
    other = agent_writes.create("Einkauf", type="organisation")
    for entity_id in (sales, other, north):
        assert approver.review(f"entity/{entity_id}@1", "confirm").status_code == 200
    agent_writes.move(north, other)  # version 3, still active, pending
    assert path_names(runtime, north) == ["Einkauf", "Nord"]

    missing = approver.review(f"entity/{north}@3", "revert")
    assert missing.status_code == 400 and missing.json()["error"] == "reason-missing"

    response = approver.review(f"entity/{north}@3", "revert", "Nord belongs to Vertrieb")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["review"]["new_version"] == 4
    assert [p["name"] for p in body["path"]] == ["Vertrieb", "Nord"]
    assert path_names(runtime, north) == ["Vertrieb", "Nord"]
    row = current(runtime, north)
    assert (row["change"], row["status"], row["parent_id"]) == ("revert", "active", sales)


def test_revert_of_a_rename_restores_the_name_and_the_index(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    approver.review(f"entity/{north}@1", "confirm")
    agent_writes.rename(north, "Vertrieb Nordost")
    response = approver.review(f"entity/{north}@3", "revert", "the team kept its name")
    assert response.status_code == 200, response.text
    assert current(runtime, north)["name"] == "Vertrieb Nord"
    with runtime.home.scope_db("sales").read() as conn:
        indexed = conn.execute("SELECT name FROM entity_fts WHERE rowid = 1").fetchone()[0]
    assert indexed == "vertrieb nord"


def test_revert_of_an_unconfirmed_create_archives_it(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    parent = agent_writes.create("Vertrieb")
    child = agent_writes.create("Nord", parent)
    refused = approver.review(f"entity/{parent}@1", "revert", "no such department")
    assert refused.status_code == 409 and refused.json()["error"] == "has-children"

    response = approver.review(f"entity/{child}@1", "revert", "made up by the agent")
    assert response.status_code == 200, response.text
    row = current(runtime, child)
    assert (row["change"], row["status"], row["valid_to"]) == ("revert", "archived", "2026-11-30")


def test_reject_is_for_links_and_revert_for_entities(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    south = agent_writes.create("Vertrieb Süd")
    link = agent_writes.link(f"entity/{north}", f"entity/{south}", "same_as")
    on_entity = approver.review(f"entity/{north}@1", "reject", "wrong")
    assert on_entity.status_code == 400 and on_entity.json()["error"] == "validation-failed"
    on_link = approver.review(f"link/{link}", "revert", "wrong")
    assert on_link.status_code == 400 and on_link.json()["error"] == "validation-failed"


def test_links_are_confirmed_or_rejected_once(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    south = agent_writes.create("Vertrieb Süd")
    kept = agent_writes.link(f"entity/{north}", f"entity/{south}", "belongs_to")
    dropped = agent_writes.link(f"entity/{south}", f"entity/{north}", "same_as")

    confirmed = approver.review(f"link/{kept}", "confirm")
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["link"]["status"] == "confirmed"

    no_reason = approver.review(f"link/{dropped}", "reject")
    assert no_reason.status_code == 400 and no_reason.json()["error"] == "reason-missing"
    rejected = approver.review(f"link/{dropped}", "reject", "two different teams")
    assert rejected.status_code == 200
    assert rejected.json()["link"]["status"] == "rejected"
    assert rejected.json()["review"]["reason"] == "two different teams"

    again = approver.review(f"link/{dropped}", "confirm")
    assert again.status_code == 409 and again.json()["error"] == "already-decided"
    unknown = approver.review("link/sales-l0099", "confirm")
    assert unknown.status_code == 404


def test_the_request_is_the_seeds_strict_review_request(approver: Approver) -> None:
    response = approver.client.post(
        "/v1/reviews",
        json={"target": "entity/sales-e0001@1", "verdict": "confirm", "by": "person:eve"},
        headers={"X-CSRF-Token": approver.csrf},
    )
    assert response.status_code == 400
    assert response.json()["problems"][0] == {"key": "by", "problem": "unknown key, not allowed"}
    versionless = approver.review("entity/sales-e0001", "confirm")
    assert versionless.status_code == 400


def test_a_foreign_scope_gets_the_one_scope_refusal(approver: Approver) -> None:
    response = approver.review("entity/hr-e0001@1", "confirm")
    assert response.status_code == 403
    assert response.json()["error"] == "scope-not-allowed"


def test_an_agents_grant_gets_403_and_no_credentials_401(
    runtime: Runtime, agent_writes: AgentWrites, agent_token: str, web: object
) -> None:
    from fastapi.testclient import TestClient

    assert isinstance(web, TestClient)
    north = agent_writes.create("Vertrieb Nord")
    _, decider_token = make_principal(
        runtime, "integration", {"sales": __import__("groundnote").auth.Right.DECIDE}, ["api"]
    )
    for token in (agent_token, decider_token):
        for path, body in (
            ("/v1/reviews", {"target": f"entity/{north}@1", "verdict": "confirm"}),
            (f"/v1/entities/{north}/archive", {"version": 1}),
            ("/v1/rules/sales-0001/decision", {"scope": "sales", "verdict": "adopt"}),
        ):
            response = web.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 403, (path, response.text)
            assert response.json()["error"] == "channel-not-allowed"
    anonymous = web.post("/v1/reviews", json={"target": f"entity/{north}@1", "verdict": "confirm"})
    assert anonymous.status_code == 401
    assert current(runtime, north)["status"] == "unconfirmed"


def test_the_session_cookie_alone_does_not_decide_without_the_csrf_header(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    body = {"target": f"entity/{north}@1", "verdict": "confirm"}
    bare = approver.client.post("/v1/reviews", json=body)
    assert bare.status_code == 401
    foreign = approver.client.post(
        "/v1/reviews",
        json=body,
        headers={"X-CSRF-Token": approver.csrf, "Origin": "https://evil.example"},
    )
    assert foreign.status_code == 401
    assert current(runtime, north)["status"] == "unconfirmed"


def test_the_database_refuses_a_review_by_anyone_but_a_person(
    runtime: Runtime, agent_writes: AgentWrites
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    scope_db = runtime.home.scope_db("sales")
    with pytest.raises(IntegrityError, match=r"(?i)check constraint"), scope_db.write() as conn:
        conn.execute(
            "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
            "decided_at) VALUES (1, 'sales-r0001', ?, 'confirm', 'grant:agent', 'x', "
            "'2026-11-30T09:00:00.000Z')",
            (f"entity/{north}@1",),
        )
    with pytest.raises(IntegrityError, match=r"(?i)check constraint"), scope_db.write() as conn:
        conn.execute(
            "INSERT INTO entity_version (id, version, type, name, aliases, status, valid_from, "
            "change, channel, changed_by, changed_at, reason) VALUES (?, 2, 'department', "
            "'Vertrieb Nord', '[]', 'active', '2026-11-30', 'confirm', 'mcp', 'grant:agent', "
            "'2026-11-30T09:00:00.000Z', 'self-confirmed')",
            (north,),
        )
    assert current(runtime, north)["status"] == "unconfirmed"
