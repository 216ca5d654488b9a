"""The pending items graph/0007's triggers keep name exactly the entities that have pending
agent versions, through creates, renames, moves, confirms, reverts and archives (each at the
time of its newest pending version)."""

from __future__ import annotations

from groundnote.graph.queries import PENDING_VERSIONS_SQL
from groundnote.runtime import Runtime
from tests.structure.helpers import AgentWrites, Approver


def _both(runtime: Runtime) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    with runtime.home.scope_db("sales").read() as conn:
        kept = {
            (r[0], r[1])
            for r in conn.execute("SELECT id, at FROM pending_item WHERE kind = 'entity'")
        }
        slow = {
            (r[0], r[1])
            for r in conn.execute(
                f"SELECT p.id, max(p.changed_at) FROM ({PENDING_VERSIONS_SQL}) p GROUP BY p.id"
            )
        }
    return kept, slow


def test_the_kept_pending_entities_match_the_pending_versions(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    top = agent_writes.create("Vertrieb")
    a = agent_writes.create("Team A", top)
    b = agent_writes.create("Team B", top)
    c = agent_writes.create("Team C", top)
    d = agent_writes.create("Team D", top)
    steps = [
        lambda: approver.review(f"entity/{top}@1", "confirm"),
        lambda: approver.review(f"entity/{a}@1", "confirm"),
        lambda: agent_writes.rename(a, "Team A2"),  # pending again after a confirm
        lambda: agent_writes.rename(b, "Team B2"),  # two agent versions, none settled
        lambda: approver.review(f"entity/{b}@2", "confirm"),  # settles both
        lambda: agent_writes.move(c, a),
        lambda: approver.review(f"entity/{c}@2", "revert", reason="bleibt"),
        lambda: approver.archive(d, 1),
    ]
    for step in steps:
        step()
        fast, slow = _both(runtime)
        assert fast == slow
    assert {entity for entity, _ in _both(runtime)[0]} == {a}
