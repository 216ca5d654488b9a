"""Archive with the cascade bottom-up (G3), through POST /v1/entities/{id}/archive."""

from __future__ import annotations

from groundnote.runtime import Runtime
from tests.structure.helpers import AgentWrites, Approver, current


def test_archive_refuses_active_children_unless_the_subtree_is_asked_for(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    top = agent_writes.create("Vertrieb", type="organisation")
    north = agent_writes.create("Nord", top)
    team = agent_writes.create("Team Hamburg", north)
    south = agent_writes.create("Süd", top)

    refused = approver.archive(top, 1)
    assert refused.status_code == 409
    body = refused.json()
    assert body["error"] == "has-children"
    assert set(body["children"]) == {north, team, south}
    assert current(runtime, top)["status"] == "unconfirmed"

    done = approver.archive(top, 1, subtree=True, reason="the division was dissolved")
    assert done.status_code == 200, done.text
    order = [e["id"] for e in done.json()["archived"]]
    assert order[0] == team and order[-1] == top  # children first, the entity last
    assert set(order) == {top, north, team, south}
    for entity_id in order:
        row = current(runtime, entity_id)
        assert (row["status"], row["change"], row["changed_by"]) == (
            "archived",
            "archive",
            "person:ruth",
        )
        assert row["reason"] == "the division was dissolved"


def test_archive_a_leaf_and_refusals_on_versions(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Nord")
    agent_writes.rename(north, "Nord-Ost")
    outdated = approver.archive(north, 1)
    assert outdated.status_code == 409
    assert outdated.json()["error"] == "version-outdated"
    assert outdated.json()["current"] == f"entity/{north}@2"

    done = approver.archive(north, 2)
    assert done.status_code == 200, done.text
    assert done.json()["archived"][0]["status"] == "archived"
    assert current(runtime, north)["reason"] == "archived on the approval page"

    again = approver.archive(north, 3)
    assert again.status_code == 409 and again.json()["error"] == "already-decided"
    unknown = approver.archive("sales-e0099", 1)
    assert unknown.status_code == 404


def test_an_archived_entity_no_longer_waits_for_review(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Nord")
    approver.archive(north, 1)
    response = approver.review(f"entity/{north}@1", "confirm")
    assert response.status_code == 409
    assert response.json()["error"] == "version-outdated"
