"""The database defends itself: every forbidden write, tried directly in SQL past all of our
code, is refused by the store's own triggers and CHECKs with the same answer on either backend
(a SQLite file, or a PostgreSQL schema when GROUNDNOTE_TEST_DATABASE_URL is set).

A trigger's refusal is its exact message, which `from_backstop` maps to an error code; a
constraint's refusal differs in wording between the engines, so it is compared by its kind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from groundnote.domain.errors import from_backstop
from groundnote.runtime import Runtime
from groundnote.store.sql import Connection, IntegrityError
from tests.conftest import Call
from tests.core.conftest import Decide, decide, mail, propose
from tests.graph.helpers import archive

__all__ = ["decide"]  # the fixture, imported so that this module may use it

NOW = "2026-11-30T09:00:00.000Z"

_KINDS = (
    ("check", ("check constraint",)),
    ("not-null", ("not null constraint", "not-null constraint")),
    ("foreign-key", ("foreign key constraint",)),
    ("unique", ("unique constraint",)),
)


def _kind(message: str) -> str:
    """The kind of a constraint refusal in either engine's words; a trigger's text as is."""
    lowered = message.lower()
    for kind, phrases in _KINDS:
        if any(p in lowered for p in phrases):
            return kind
    return message.strip()


@dataclass(frozen=True)
class World:
    runtime: Runtime
    adopted: str  # a rule a person adopted
    proposed: str  # a rule nobody decided on
    root: str  # an entity with one child
    child: str
    gone: str  # an archived entity
    link: str  # a proposed link from the mail to `root`
    login: str  # a used one-time login link's hash

    def refusal(self, sql: str, params: Any = (), *, instance: bool = False) -> str:
        db = self.runtime.home.instance if instance else self.runtime.home.scope_db("sales")
        with pytest.raises(IntegrityError) as exc, db.write() as conn:
            conn.execute(sql, params)
        return _kind(str(exc.value))


M1 = "mail:<m1@example.org>"


@pytest.fixture
def world(runtime: Runtime, call: Call, decide: Decide) -> Iterator[World]:
    call(
        "core.store_source",
        scope="sales",
        source=mail(
            1, attachments=[{"filename": "a.txt", "media_type": "text/plain", "text": "x"}]
        ),
    )
    adopted = propose(call, "Rabatt Nord drei Prozent.", [f"source/{M1}"])["id"]
    decide(adopted, "adopt")
    proposed = propose(call, "Skonto zwei Prozent.", [f"source/{M1}"])["id"]
    root = call("graph.entity_create", scope="sales", type="customer", name="Nordlicht")
    child = call(
        "graph.entity_create",
        scope="sales",
        type="project",
        name="Polarstern",
        parent_id=root["entity"]["id"],
    )
    gone = call("graph.entity_create", scope="sales", type="project", name="Eisbrecher")
    archive(runtime, "sales", gone["entity"]["id"])
    link = call(
        "graph.link_propose",
        scope="sales",
        from_ref=f"source/{M1}",
        to_ref=f"entity/{root['entity']['id']}",
        type="concerns",
        confidence=0.5,
        reason="named in the subject",
    )["link"]["id"]
    with runtime.home.instance.write() as conn:
        conn.execute(
            "INSERT INTO person (id, email, created_at) VALUES ('person:ruth', 'ruth@x.org', ?)",
            (NOW,),
        )
        conn.execute(
            "INSERT INTO person_login (token_sha256, person_id, created_at, expires_at, used_at) "
            "VALUES ('t1', 'person:ruth', ?, '2026-12-01T09:00:00.000Z', ?)",
            (NOW, NOW),
        )
        for concept, org in (("concept:a", "acme"), ("concept:b", "other")):
            conn.execute(
                "INSERT INTO concept (id, org_id, name, shape, created_at, updated_at) "
                "VALUES (?, ?, 'n', 's', ?, ?)",
                (concept, org, NOW, NOW),
            )
    yield World(
        runtime,
        adopted,
        proposed,
        root["entity"]["id"],
        child["entity"]["id"],
        gone["entity"]["id"],
        link,
        "t1",
    )


def _version(conn: Connection, entity_id: str, **changes: Any) -> tuple[str, list[Any]]:
    """An INSERT of the entity's next version: its latest one with `changes` applied."""
    row = dict(
        conn.execute(
            "SELECT * FROM entity_version WHERE id = ? ORDER BY version DESC LIMIT 1", (entity_id,)
        ).fetchone()
    )
    row.update(version=row["version"] + 1, changed_at=NOW, reason="direct", **changes)
    names = ", ".join(row)
    return f"INSERT INTO entity_version ({names}) VALUES ({', '.join('?' for _ in row)})", list(
        row.values()
    )


def _refused_version(world: World, entity_id: str, **changes: Any) -> str:
    with world.runtime.home.scope_db("sales").read() as conn:
        sql, params = _version(conn, entity_id, **changes)
    return world.refusal(sql, params)


APPEND_ONLY = [
    ("UPDATE source SET title = 'x'", ()),
    ("DELETE FROM source", ()),
    ("UPDATE source_attachment SET filename = 'x'", ()),
    ("DELETE FROM source_attachment", ()),
    ("UPDATE rule SET statement = 'x'", ()),
    ("DELETE FROM rule", ()),
    ("UPDATE rule_decision SET reason = 'x'", ()),
    ("DELETE FROM rule_decision", ()),
    ("UPDATE rule_evidence SET n = NULL", ()),
    ("DELETE FROM rule_evidence", ()),
    ("UPDATE entity SET created_by = 'human'", ()),
    ("DELETE FROM entity", ()),
    ("UPDATE entity_version SET reason = 'x'", ()),
    ("DELETE FROM entity_version", ()),
    ("DELETE FROM link", ()),
    ("UPDATE link SET reason = 'other'", ()),  # a link only ever gets its valid_to
]


@pytest.mark.parametrize(("sql", "params"), APPEND_ONLY)
def test_history_is_append_only(world: World, sql: str, params: tuple[Any, ...]) -> None:
    assert world.refusal(sql, params) == "append-only"


def test_a_link_ends_once(world: World) -> None:
    with world.runtime.home.scope_db("sales").write() as conn:
        conn.execute("UPDATE link SET valid_to = ? WHERE id = ?", (NOW, world.link))
    refused = world.refusal("UPDATE link SET valid_to = ? WHERE id = ?", (NOW, world.link))
    assert refused == "append-only"


def test_reviews_are_append_only(world: World) -> None:
    with world.runtime.home.scope_db("sales").write() as conn:
        conn.execute(
            "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
            "decided_at) VALUES (1, 'sales-r0001', ?, 'confirm', 'person:ruth', 'ruth@x.org', ?)",
            (f"link/{world.link}", NOW),
        )
    assert world.refusal("UPDATE review SET reason = 'x'") == "append-only"
    assert world.refusal("DELETE FROM review") == "append-only"


def test_ids_belong_to_the_scope(world: World) -> None:
    rule = (
        "INSERT INTO rule (seq, id, statement, evidence_refs, valid_from, proposed_at, "
        "proposed_by, channel) VALUES (?, ?, 'x', '[]', '2026-11-01', ?, 'grant:a', 'mcp')"
    )
    assert world.refusal(rule, (3, "other-0003", NOW)) == "rule-id-not-in-scope"
    assert world.refusal(rule, (3, "sales-0004", NOW)) == "rule-id-not-in-scope"
    # printf('%04d') pads, never truncates: seq 12345 is sales-12345 on both backends
    with world.runtime.home.scope_db("sales").write() as conn:
        conn.execute(rule, (12345, "sales-12345", NOW))
    entity = (
        "INSERT INTO entity (seq, id, scope, created_at, created_by) VALUES (?, ?, ?, ?, 'agent')"
    )
    assert world.refusal(entity, (9, "sales-e0009", "other", NOW)) == "entity-id-not-in-scope"
    assert world.refusal(entity, (9, "sales-e9", "sales", NOW)) == "entity-id-not-in-scope"
    link = (
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, reason, valid_from, "
        "created_at, created_by) VALUES (9, ?, ?, ?, 'concerns', 'human', 'r', ?, ?, 'grant:a')"
    )
    args = (f"source/{M1}", f"entity/{world.child}", NOW, NOW)
    assert world.refusal(link, ("sales-l0001", *args)) == "link-id-not-in-scope"
    review = (
        "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
        "decided_at) VALUES (1, 'sales-r0002', ?, 'confirm', 'person:ruth', 'r@x.org', ?)"
    )
    assert world.refusal(review, (f"link/{world.link}", NOW)) == "review-id-not-in-scope"


def test_link_endpoints_must_exist_and_be_live(world: World) -> None:
    link = (
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, reason, valid_from, "
        "created_at, created_by) VALUES (2, 'sales-l0002', ?, ?, 'concerns', 'human', 'r', ?, ?, "
        "'grant:a')"
    )
    unknown = (
        "source/mail:<nope@x>",
        "entity/sales-e0099",
        "rule/sales-0099",
        f"attachment/{M1}#2",
    )
    for ref in unknown:
        assert world.refusal(link, (ref, f"entity/{world.root}", NOW, NOW)) == (
            "link-endpoint-unknown"
        ), ref
        assert world.refusal(link, (f"entity/{world.root}", ref, NOW, NOW)) == (
            "link-endpoint-unknown"
        ), ref
    gone = f"entity/{world.gone}"
    assert world.refusal(link, (f"attachment/{M1}#1", gone, NOW, NOW)) == "entity-archived"
    assert from_backstop("entity-archived") is not None
    with world.runtime.home.scope_db("sales").write() as conn:  # every kind of known endpoint
        conn.execute(link, (f"attachment/{M1}#1", f"rule/{world.adopted}", NOW, NOW))


def test_decisions_follow_the_transitions(world: World) -> None:
    decision = (
        "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, decided_at, "
        "channel) VALUES (99, ?, ?, ?, ?, ?, ?)"
    )
    person = ("person:ruth", NOW, "approval")
    assert world.refusal(decision, (world.adopted, "adopt", None, *person)) == "already-decided"
    assert world.refusal(decision, (world.adopted, "reject", "no", *person)) == "already-decided"
    assert world.refusal(decision, (world.proposed, "retract", "no", *person)) == (
        "invalid-transition"
    )
    agent = ("grant:agent", NOW, "mcp")
    assert world.refusal(decision, (world.adopted, "retract", "no", *agent)) == "not-auto-adopted"


def test_entity_versions_follow_the_transitions(world: World) -> None:
    home = world.runtime.home
    with home.scope_db("sales").read() as conn:
        sql, params = _version(conn, world.child, change="update")
    params[1] += 1  # version 3 after 1
    assert world.refusal(sql, params) == "version-gap"
    assert _refused_version(world, world.child, change="create") == "invalid-transition"
    assert _refused_version(world, world.gone, change="update") == "terminal-state"
    assert _refused_version(world, world.child, change="update", status="active") == (
        "invalid-transition"
    )
    confirm = {"change": "confirm", "channel": "approval", "changed_by": "person:ruth"}
    assert _refused_version(world, world.child, **confirm, status="active", name="Neu") == (
        "state-changed"
    )
    assert _refused_version(world, world.root, change="move", parent_id=world.child) == "cycle"
    assert _refused_version(world, world.child, change="move", parent_id=world.gone) == (
        "parent-archived"
    )
    archive_ = {**confirm, "change": "archive", "status": "archived", "valid_to": "2026-11-30"}
    assert _refused_version(world, world.root, **archive_) == "has-children"
    for message in ("version-gap", "invalid-transition", "cycle", "has-children"):
        assert from_backstop(message) is not None, message


CHECKS = [
    # (statement, params) each breaking one CHECK of a scope's tables
    (
        "INSERT INTO source (seq, id, kind, title, day, body, content_sha256, stored_at, "
        "stored_by) VALUES (9, 'mail:<x@y>', 'meeting', 't', '2026-11-01', 'b', 'h', ?, 'g')",
        (NOW,),
    ),
    (
        "INSERT INTO source (seq, id, kind, title, day, body, content_sha256, stored_at, "
        "stored_by) VALUES (9, 'fax:1', 'mail', 't', '2026-11-01', 'b', 'h', ?, 'g')",
        (NOW,),
    ),
    (
        "INSERT INTO source (seq, id, kind, title, day, body, content_sha256, stored_at, "
        "stored_by) VALUES (9, 'jamie:x', 'meeting', 't', '1.11.2026', 'b', 'h', ?, 'g')",
        (NOW,),
    ),
    (
        "INSERT INTO source (seq, id, kind, title, day, body, content_sha256, stored_at, "
        "stored_by, recipients) VALUES (9, 'jamie:x', 'meeting', 't', '2026-11-01', 'b', 'h', "
        "?, 'g', '[not json')",
        (NOW,),
    ),
    (
        "INSERT INTO source (seq, id, kind, title, day, body, content_sha256, stored_at, "
        "stored_by) VALUES (9, 'jamie:x', 'meeting', 't', '2026-11-01', 'b', 'h', "
        "'2026-11-30 09:00', 'g')",
        (),
    ),
    (
        "INSERT INTO rule (seq, id, statement, evidence_refs, valid_from, valid_to, proposed_at, "
        "proposed_by, channel) VALUES (3, 'sales-0003', 'x', '[]', '2026-11-01', '2026-10-01', "
        "?, 'grant:a', 'mcp')",
        (NOW,),
    ),
    (
        "INSERT INTO rule (seq, id, statement, evidence_refs, valid_from, proposed_at, "
        "proposed_by, channel) VALUES (3, 'sales-0003', 'x', '{}', '2026-11-01', ?, 'grant:a', "
        "'mcp')",
        (NOW,),
    ),
    (
        "INSERT INTO rule (seq, id, statement, evidence_refs, valid_from, proposed_at, "
        "proposed_by, channel) VALUES (3, 'sales-0003', '  ', '[]', '2026-11-01', ?, 'grant:a', "
        "'mcp')",
        (NOW,),
    ),
    (
        "INSERT INTO rule_decision (seq, rule_id, verdict, decided_by, decided_at, channel) "
        "VALUES (99, 'sales-0002', 'reject', 'person:ruth', ?, 'approval')",
        (NOW,),
    ),
    (
        "INSERT INTO rule_decision (seq, rule_id, verdict, decided_by, decided_at, channel) "
        "VALUES (99, 'sales-0002', 'adopt', 'grant:agent', ?, 'approval')",
        (NOW,),
    ),
    (
        "INSERT INTO entity (seq, id, scope, created_at, created_by) "
        "VALUES (9, 'sales-e0009', 'sales', ?, 'robot')",
        (NOW,),
    ),
    (
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, confidence, reason, "
        "valid_from, created_at, created_by) VALUES (2, 'sales-l0002', ?, ?, 'concerns', "
        "'proposed', 1.5, 'r', ?, ?, 'grant:a')",
        (f"source/{M1}", "entity/sales-e0001", NOW, NOW),
    ),
    (
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, reason, valid_from, "
        "created_at, created_by) VALUES (2, 'sales-l0002', ?, ?, 'Concerns', 'human', 'r', ?, ?, "
        "'grant:a')",
        (f"source/{M1}", "entity/sales-e0001", NOW, NOW),
    ),
    (
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, reason, valid_from, "
        "created_at, created_by) VALUES (2, 'sales-l0002', ?, ?, 'concerns', 'human', 'r', ?, ?, "
        "'grant:a')",
        (f"source/{M1}", f"source/{M1}", NOW, NOW),
    ),
    (
        "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
        "decided_at) VALUES (1, 'sales-r0001', 'entity/sales-e0001', 'confirm', 'person:ruth', "
        "'r@x.org', ?)",
        (NOW,),
    ),
    (
        "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
        "decided_at, reason) VALUES (1, 'sales-r0001', 'entity/sales-e0001@1', 'reject', "
        "'person:ruth', 'r@x.org', ?, 'no')",
        (NOW,),
    ),
    ("INSERT INTO change_record (seq, kind, ref) VALUES (999999, '', 'x')", ()),
    (
        "INSERT INTO call_key (actor, key, operation, input_sha256, answer, at) "
        "VALUES ('grant:a', '', 'op', 'h', '{}', ?)",
        (NOW,),
    ),
    (
        "INSERT INTO call_key (actor, key, operation, input_sha256, answer, at) "
        "VALUES ('grant:a', 'k', 'op', 'h', 'nope', ?)",
        (NOW,),
    ),
    ("INSERT INTO knowledge_commit (sha) VALUES ('abc')", ()),
    ("UPDATE meta SET scope = 'Sales'", ()),
]


@pytest.mark.parametrize(("sql", "params"), CHECKS)
def test_every_check_holds(world: World, sql: str, params: tuple[Any, ...]) -> None:
    assert world.refusal(sql, params) == "check"


def test_entity_version_checks(world: World) -> None:
    aliases = json.dumps([f"a{i}" for i in range(21)])
    assert _refused_version(world, world.child, change="update", aliases=aliases) == "check"
    assert _refused_version(world, world.child, change="update", type="Kunde") == "check"
    # its own parent: the trigger (which runs before the CHECKs on both engines) says cycle
    assert _refused_version(world, world.child, change="move", parent_id=world.child) == "cycle"
    assert _refused_version(world, world.child, change="update", channel="approval") == "check"


def test_keys_and_references_hold(world: World) -> None:
    assert (
        world.refusal(
            "INSERT INTO rule_evidence (rule_id, source_id, n) VALUES (?, 'mail:<nope@x>', NULL)",
            (world.adopted,),
        )
        == "foreign-key"
    )
    assert (
        world.refusal(
            "INSERT INTO rule_evidence (rule_id, source_id, n) VALUES (?, ?, 7)",
            (world.adopted, M1),
        )
        == "foreign-key"
    )
    assert (
        world.refusal("INSERT INTO fts_word (word) SELECT word FROM fts_word LIMIT 1") == "unique"
    )
    assert (
        world.refusal(
            "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, confidence, reason, "
            "valid_from, created_at, created_by) VALUES (2, 'sales-l0002', ?, ?, 'concerns', "
            "'proposed', 0.5, 'r', ?, ?, 'grant:a')",
            (f"source/{M1}", f"entity/{world.root}", NOW, NOW),
        )
        == "unique"
    )  # one open link per (from, type, to)
    assert world.refusal("INSERT INTO source_attachment (source_id, n) VALUES (?, 2)", (M1,)) == (
        "not-null"
    )


def test_the_instance_defends_itself(world: World) -> None:
    refusal = world.refusal
    with world.runtime.home.instance.write() as conn:
        conn.execute(
            "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, "
            "input_sha256) VALUES ('s1', ?, 'grant:a', 'cli', 'status', 'ok', 'h')",
            (NOW,),
        )
    assert refusal("UPDATE search_log SET outcome = 'x'", instance=True) == "append-only"
    assert refusal("DELETE FROM search_log", instance=True) == "append-only"
    assert refusal("UPDATE person_login SET used_at = NULL", instance=True) == "login-link-used"
    assert (
        refusal("INSERT INTO scope (name, created_at) VALUES ('Sales_2', ?)", (NOW,), instance=True)
        == "check"
    )
    assert (
        refusal(
            "INSERT INTO grant_ (id, secret_sha256, channels, rights, created_at) "
            "VALUES ('grant:x', 'h', '{}', '{}', ?)",
            (NOW,),
            instance=True,
        )
        == "check"
    )
    assert (
        refusal(
            "INSERT INTO person (id, email, created_at) VALUES ('person:x', 'no-at-sign', ?)",
            (NOW,),
            instance=True,
        )
        == "check"
    )
    edge = (
        "INSERT INTO concept_edge (id, org_id, from_concept_id, to_concept_id, edge_type, "
        "weight, created_at, updated_at) VALUES ('edge:1', ?, ?, ?, 't', 0.5, ?, ?)"
    )
    across = ("acme", "concept:a", "concept:b", NOW, NOW)
    assert refusal(edge, across, instance=True) == "link-endpoint-unknown"
    assert (
        refusal(
            "INSERT INTO concept_usage (id, org_id, concept_id, outcome, at) "
            "VALUES ('usage:1', 'acme', 'concept:b', 'success', ?)",
            (NOW,),
            instance=True,
        )
        == "link-endpoint-unknown"
    )
    assert (
        refusal(
            "INSERT INTO concept (id, org_id, name, shape, priority, created_at, updated_at) "
            "VALUES ('concept:c', 'acme', 'n', 's', 1.5, ?, ?)",
            (NOW, NOW),
            instance=True,
        )
        == "check"
    )
    with world.runtime.home.instance.write() as conn:  # inside one org it passes
        conn.execute(edge, ("other", "concept:b", "concept:b", NOW, NOW))
