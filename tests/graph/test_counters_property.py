"""After any history of writes through the capabilities (agents' creates, moves, updates, links
and rules; a person's reviews, archives and decisions), every counter graph/0007 keeps equals
what the store's rows count, and the pending items are exactly what waits (issue 18); and so
after the same rows written many to a statement, as an import writes them (graph/0009 counts
per statement on PostgreSQL)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.auth import Principal, Right
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError
from groundnote.graph.counters import counter_drift, fill_counters, tallies
from groundnote.runtime import SCOPE_TRANSFER, Runtime, open_runtime
from groundnote.store.transfer import export_lines, import_lines
from groundnote.surfaces.http.approval import approval_registry

AGENT = Principal(
    id="grant:prop", org="local", channels=frozenset({"mcp"}), rights={"*": Right.PROPOSE}
)
PERSON = Principal(
    id="person:ruth", org="local", channels=frozenset({"approval"}), rights={"*": Right.DECIDE}
)
MAIL = "mail:<m1@example.org>"

step = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 20), st.sampled_from(["topic", "department"])),
    st.tuples(st.just("move"), st.integers(0, 20), st.integers(-1, 20)),
    st.tuples(st.just("update"), st.integers(0, 20)),
    st.tuples(st.just("review"), st.integers(0, 20), st.sampled_from(["confirm", "revert"])),
    st.tuples(st.just("archive"), st.integers(0, 20)),
    st.tuples(st.just("link"), st.integers(0, 20), st.integers(0, 20)),
    st.tuples(st.just("link_review"), st.integers(0, 20), st.sampled_from(["confirm", "reject"])),
    st.tuples(st.just("rule"), st.integers(-1, 20)),
    st.tuples(
        st.just("decide"),
        st.integers(0, 20),
        st.sampled_from(["adopt", "adopt", "reject", "retract"]),
    ),
    st.tuples(st.just("mail"), st.integers(0, 1000)),
)


@pytest.fixture
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    rt = open_runtime(
        tmp_path_factory.mktemp("home"),
        environ={},
        clock=FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC)),
    )
    yield rt
    rt.close()


class History:
    """One scope's writes, each through its capability on its channel, as in use."""

    def __init__(self, rt: Runtime, scope: str) -> None:
        self.rt, self.scope = rt, scope
        self.person = approval_registry()
        self.entities: list[str] = []
        self.links: list[str] = []
        self.rules: list[str] = []
        self.mails = 0

    def agent(self, capability: str, /, **raw: Any) -> dict[str, Any]:
        cap = self.rt.registry.get(capability)
        out = self.rt.invoke(cap, {"scope": self.scope, **raw}, principal=AGENT, channel="mcp")
        return out.model_dump(mode="json")

    def decide(self, capability: str, /, **raw: Any) -> None:
        self.rt.invoke(self.person.get(capability), raw, principal=PERSON, channel="approval")

    def version(self, entity_id: str) -> int:
        with self.rt.home.scope_db(self.scope).read() as conn:
            row = conn.execute(
                "SELECT version FROM entity_current WHERE id = ?", (entity_id,)
            ).fetchone()
        return int(row[0])

    def adopted(self) -> list[str]:
        with self.rt.home.scope_db(self.scope).read() as conn:
            rows = conn.execute(
                "SELECT id FROM rule_state WHERE status = 'adopted' ORDER BY id"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def mail(self, n: int) -> None:
        self.agent(
            "core.store_source",
            source={
                "kind": "mail",
                "id": f"mail:<m{n}@example.org>",
                "subject": f"Rabatt {n}",
                "sent_at": "2026-10-01T08:00:00.000Z",
                "body": f"Kunde {n} erhält Rabatt.",
            },
        )

    def step(self, n: int, action: tuple[Any, ...]) -> None:
        kind, pick = action[0], action[1]

        def one(found: list[str]) -> str:
            return found[pick % len(found)]

        if kind == "create":
            parent = one(self.entities) if self.entities and pick % 3 else None
            out = self.agent(
                "graph.entity_create",
                type=action[2],
                name=f"Knoten {n}",
                parent_id=parent,
                force=True,
                reason="generated",
            )
            self.entities.append(out["entity"]["id"])
        elif kind == "mail":
            self.mail(pick)
        elif kind == "rule":
            adopted = self.adopted()
            out = self.agent(
                "core.propose_rule",
                statement=f"Kunde {n} erhält drei Prozent Rabatt.",
                evidence={"quote": "Rabatt", "refs": [f"source/{MAIL}"]},
                supersedes=one(adopted) if adopted and pick >= 0 else None,
            )
            self.rules.append(out["id"])
        elif kind == "decide" and self.rules:
            reason = None if action[2] == "adopt" else "generated"
            self.decide(
                "decision.rule_decide",
                scope=self.scope,
                id=one(self.rules),
                verdict=action[2],
                reason=reason,
            )
        elif not self.entities:
            return
        elif kind == "move":
            target = None if action[2] < 0 else self.entities[action[2] % len(self.entities)]
            self.agent("graph.entity_move", id=one(self.entities), parent_id=target)
        elif kind == "update":
            self.agent(
                "graph.entity_update",
                id=one(self.entities),
                aliases_add=[f"Alias {n}"],
                force=True,
                reason="generated",
            )
        elif kind == "review":
            entity_id = one(self.entities)
            target = f"entity/{entity_id}@{self.version(entity_id)}"
            self.decide("structure.review", target=target, verdict=action[2], reason="generated")
        elif kind == "archive" and pick % 5 == 0:  # rarely: a subtree archived stays so
            entity_id = one(self.entities)
            raw = {"id": entity_id, "version": self.version(entity_id), "subtree": True}
            self.decide("structure.archive", **raw, reason="generated")
        elif kind == "link":
            # A rule's link to an entity, or one entity the same as another.
            rule = self.rules and pick % 2
            out = self.agent(
                "graph.link_propose",
                from_ref=f"rule/{one(self.rules)}" if rule else f"entity/{one(self.entities)}",
                to_ref=f"entity/{self.entities[action[2] % len(self.entities)]}",
                type="concerns" if rule else "same_as",
                confidence=0.8,
                reason="generated",
            )
            self.links.append(out["link"]["id"])
        elif kind == "link_review" and self.links:
            self.decide(
                "structure.review",
                target=f"link/{one(self.links)}",
                verdict=action[2],
                reason="generated",
            )


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(step, min_size=1, max_size=40))
def test_counters_equal_the_counted_truth(shared: Runtime, steps: list[tuple[Any, ...]]) -> None:
    scope = f"c{len(shared.home.scope_names()):04d}"
    shared.home.create_scope(scope)
    history = History(shared, scope)
    history.mail(1)
    for n, action in enumerate(steps):
        # A refused write (a cycle, a decided rule, an archived entity) writes nothing.
        with contextlib.suppress(GroundnoteError):
            history.step(n, action)
    db = shared.home.scope_db(scope)
    assert counter_drift(db, scope) == []
    with db.read() as conn:
        assert tallies(conn)["sources:mail"] >= 1  # the triggers counted, not only the fill
    with db.read() as conn:
        kept = tallies(conn)
    with db.write() as conn:
        fill_counters(conn)
        assert {k: v for k, v in tallies(conn).items() if v} == {k: v for k, v in kept.items() if v}


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(step, min_size=1, max_size=40))
def test_counters_hold_when_one_statement_writes_many_rows(
    shared: Runtime, steps: list[tuple[Any, ...]]
) -> None:
    scope = f"c{len(shared.home.scope_names()):04d}"
    shared.home.create_scope(scope)
    history = History(shared, scope)
    history.mail(1)
    for n, action in enumerate(steps):
        with contextlib.suppress(GroundnoteError):
            history.step(n, action)
    with shared.home.scope_db(scope).read() as conn:
        conn.execute("BEGIN")
        lines = list(export_lines(conn, SCOPE_TRANSFER, scope))
        conn.execute("COMMIT")
    copy = f"{scope}-copy"
    shared.home.create_scope(copy)
    db = shared.home.scope_db(copy)
    # Without the import's end, which fills every counter again: only the triggers count, each
    # table's rows (an entity's versions, links, reviews, the log) in one statement.
    with db.write() as conn:
        import_lines(conn, replace(SCOPE_TRANSFER, finish=()), copy, lines)
    assert counter_drift(db, copy) == []
