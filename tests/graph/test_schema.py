"""Migration graph/0002: the database refuses what seed 000 §3 says, with our code bypassed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.graph.helpers import archive, raw, store_mail

NOW = "2026-11-30T09:00:00.000Z"

pytestmark = pytest.mark.sqlite_only(
    "reads the scope file with a raw sqlite3 connection; tests/store/test_forbidden_writes.py "
    "tries the same refusals on both backends"
)


@pytest.fixture
def db(runtime: Runtime, scope: str, call: Call) -> Iterator[sqlite3.Connection]:
    top = call("graph.entity_create", scope=scope, type="organisation", name="Nordlicht AG")
    call(
        "graph.entity_create",
        scope=scope,
        type="department",
        name="Vertrieb",
        parent_id=top["entity"]["id"],
    )
    conn = raw(runtime, scope)
    yield conn
    conn.close()


def refused(
    conn: sqlite3.Connection,
    sql: str,
    params: tuple[object, ...] = (),
    *,
    message: str | None = None,
) -> None:
    with pytest.raises(sqlite3.IntegrityError) as exc:
        conn.execute(sql, params)
    if message is not None:
        assert message in str(exc.value)


VERSION = (
    "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, valid_from, "
    "valid_to, change, channel, changed_by, changed_at, reason) VALUES (?, ?, ?, ?, '[]', ?, ?, "
    "'2026-11-30', ?, ?, ?, ?, ?, 'r')"
)


def test_schema_version_and_log_rebuild(db: sqlite3.Connection) -> None:
    assert db.execute("SELECT schema_version FROM meta").fetchone()[0] == 2
    ops = [r[0] for r in db.execute("SELECT DISTINCT operation FROM search_log")]
    assert "create_entity" in ops
    fk = db.execute("PRAGMA foreign_key_list(feedback)").fetchall()
    assert fk[0][2] == "search_log"
    # graph/0004 took seed 000's list of operation names out of the table (DESIGN §15 P9:
    # tests/capabilities/test_declarations.py holds it); the other CHECKs stay.
    refused(
        db,
        "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, "
        "input_sha256) VALUES ('x', ?, 'g', 'carrier-pigeon', 'search', 'ok', 'h')",
        (NOW,),
    )
    for op in ("export", "decide", "review_structure", "archive_entity", "list_structure"):
        db.execute(
            "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, "
            "input_sha256) VALUES (?, ?, 'g', 'mcp', ?, 'ok', 'h')",
            (op, NOW, op),
        )
    closure_pk = db.execute("SELECT sql FROM sqlite_master WHERE name = 'entity_closure'")
    assert "WITHOUT ROWID" in closure_pk.fetchone()[0]
    indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {
        "entity_closure_up",
        "entity_closure_down",
        "link_open",
        "link_to",
        "review_once",
    } <= indexes


def test_entity_heads_are_in_scope_and_append_only(db: sqlite3.Connection) -> None:
    refused(
        db,
        "INSERT INTO entity VALUES (9, 'other-e0009', 'other', ?, 'agent')",
        (NOW,),
        message="entity-id-not-in-scope",
    )
    refused(
        db,
        "INSERT INTO entity VALUES (9, 'sales-e0010', 'sales', ?, 'agent')",
        (NOW,),
        message="entity-id-not-in-scope",
    )
    refused(db, "INSERT INTO entity VALUES (9, 'sales-e0009', 'sales', ?, 'robot')", (NOW,))
    refused(db, "UPDATE entity SET created_by = 'human'", message="append-only")
    refused(db, "DELETE FROM entity", message="append-only")
    refused(db, "UPDATE entity_version SET name = 'x'", message="append-only")
    refused(db, "DELETE FROM entity_version", message="append-only")


def test_version_rules(db: sqlite3.Connection) -> None:
    e1, e2 = "sales-e0001", "sales-e0002"
    # version gap, a create that is not version 1, a move as version 1
    refused(
        db,
        VERSION,
        (e2, 3, "department", "V", e1, "unconfirmed", None, "move", "mcp", "grant:a", NOW),
        message="version-gap",
    )
    refused(
        db,
        VERSION,
        (e2, 2, "department", "V", e1, "unconfirmed", None, "create", "mcp", "grant:a", NOW),
        message="invalid-transition",
    )
    # agents never confirm, and a confirm is only by a person on the approval channel
    refused(
        db,
        VERSION,
        (e2, 2, "department", "Vertrieb", e1, "active", None, "confirm", "mcp", "grant:a", NOW),
    )
    refused(
        db,
        VERSION,
        (
            e2,
            2,
            "department",
            "Vertrieb",
            e1,
            "active",
            None,
            "confirm",
            "approval",
            "grant:a",
            NOW,
        ),
    )
    # agents never change status
    refused(
        db,
        VERSION,
        (e2, 2, "department", "V", e1, "active", None, "update", "mcp", "grant:a", NOW),
        message="invalid-transition",
    )
    # a confirm must not change the content
    refused(
        db,
        VERSION,
        (
            e2,
            2,
            "department",
            "Other",
            e1,
            "active",
            None,
            "confirm",
            "approval",
            "person:ruth",
            NOW,
        ),
        message="state-changed",
    )
    # a parent inside the own subtree
    refused(
        db,
        VERSION,
        (
            e1,
            2,
            "organisation",
            "Nordlicht AG",
            e2,
            "unconfirmed",
            None,
            "move",
            "mcp",
            "grant:a",
            NOW,
        ),
        message="cycle",
    )
    refused(
        db,
        VERSION,
        (
            e1,
            2,
            "organisation",
            "Nordlicht AG",
            e1,
            "unconfirmed",
            None,
            "move",
            "mcp",
            "grant:a",
            NOW,
        ),
    )
    # archiving a parent with live children
    refused(
        db,
        VERSION,
        (
            e1,
            2,
            "organisation",
            "Nordlicht AG",
            None,
            "archived",
            "2026-11-30",
            "archive",
            "approval",
            "person:ruth",
            NOW,
        ),
        message="has-children",
    )
    # archived without valid_to, a bad type, too many aliases
    refused(
        db,
        VERSION,
        (
            e2,
            2,
            "department",
            "Vertrieb",
            e1,
            "archived",
            None,
            "archive",
            "approval",
            "person:ruth",
            NOW,
        ),
    )
    refused(
        db,
        VERSION.replace("'[]'", "'[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21]'"),
        (e2, 2, "department", "V", e1, "unconfirmed", None, "update", "mcp", "grant:a", NOW),
    )
    refused(
        db,
        VERSION,
        (e2, 2, "Depart ment", "V", e1, "unconfirmed", None, "update", "mcp", "grant:a", NOW),
    )


def test_archived_is_terminal_and_takes_no_children(
    runtime: Runtime, scope: str, db: sqlite3.Connection
) -> None:
    archive(runtime, scope, "sales-e0002")
    refused(
        db,
        VERSION,
        (
            "sales-e0002",
            3,
            "department",
            "Vertrieb",
            "sales-e0001",
            "archived",
            "2026-11-30",
            "update",
            "mcp",
            "grant:a",
            NOW,
        ),
        message="terminal-state",
    )
    db.execute("INSERT INTO entity VALUES (3, 'sales-e0003', 'sales', ?, 'agent')", (NOW,))
    refused(
        db,
        VERSION,
        (
            "sales-e0003",
            1,
            "team",
            "T",
            "sales-e0002",
            "unconfirmed",
            None,
            "create",
            "mcp",
            "grant:a",
            NOW,
        ),
        message="parent-archived",
    )


LINK = (
    "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, confidence, reason, valid_from, "
    "created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def test_links_refuse_what_the_seed_refuses(
    runtime: Runtime, scope: str, db: sqlite3.Connection
) -> None:
    mail = "source/" + store_mail(runtime, scope, "a@x", "Angebot")
    ent = "entity/sales-e0001"
    refused(
        db,
        LINK,
        (1, "sales-l0002", mail, ent, "concerns", "proposed", 0.5, "r", NOW, NOW, "grant:a"),
        message="link-id-not-in-scope",
    )
    refused(
        db,
        LINK,
        (
            1,
            "sales-l0001",
            "source/mail:<nope@x>",
            ent,
            "concerns",
            "proposed",
            0.5,
            "r",
            NOW,
            NOW,
            "grant:a",
        ),
        message="link-endpoint-unknown",
    )
    refused(
        db,
        LINK,
        (
            1,
            "sales-l0001",
            mail,
            "entity/sales-e0099",
            "concerns",
            "proposed",
            0.5,
            "r",
            NOW,
            NOW,
            "grant:a",
        ),
        message="link-endpoint-unknown",
    )
    refused(
        db,
        LINK,
        (1, "sales-l0001", mail, ent, "concerns", "proposed", None, "r", NOW, NOW, "grant:a"),
    )  # G4: proposed needs a confidence
    refused(
        db,
        LINK,
        (1, "sales-l0001", mail, ent, "concerns", "human", None, None, NOW, NOW, "person:ruth"),
    )  # a human link needs a reason
    refused(
        db,
        LINK,
        (1, "sales-l0001", mail, ent, "concerns", "deterministic", None, None, NOW, NOW, "grant:a"),
    )  # deterministic is written by code only
    refused(
        db,
        LINK,
        (1, "sales-l0001", mail, mail, "concerns", "proposed", 0.5, "r", NOW, NOW, "grant:a"),
    )
    db.execute(
        LINK, (1, "sales-l0001", mail, ent, "concerns", "proposed", 0.5, "r", NOW, NOW, "grant:a")
    )
    refused(
        db,
        LINK,
        (2, "sales-l0002", mail, ent, "concerns", "proposed", 0.7, "r", NOW, NOW, "grant:a"),
    )  # one open link per (from, type, to)
    refused(db, "DELETE FROM link", message="append-only")
    refused(db, "UPDATE link SET confidence = 0.9", message="append-only")
    db.execute("UPDATE link SET valid_to = ?", ("2026-12-01T00:00:00.000Z",))  # ended once
    refused(
        db, "UPDATE link SET valid_to = ?", ("2026-12-02T00:00:00.000Z",), message="append-only"
    )
    archive(runtime, scope, "sales-e0002")
    refused(
        db,
        LINK,
        (
            2,
            "sales-l0002",
            mail,
            "entity/sales-e0002",
            "concerns",
            "proposed",
            0.5,
            "r",
            NOW,
            NOW,
            "grant:a",
        ),
        message="entity-archived",
    )


REVIEW = (
    "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, decided_at, "
    "reason) VALUES (?, ?, ?, ?, ?, 'ruth@example.org', ?, ?)"
)


def test_reviews(db: sqlite3.Connection) -> None:
    refused(db, REVIEW, (1, "sales-r0001", "entity/sales-e0001@1", "confirm", "grant:a", NOW, None))
    refused(
        db, REVIEW, (1, "sales-r0001", "entity/sales-e0001@1", "reject", "person:ruth", NOW, "no")
    )
    refused(db, REVIEW, (1, "sales-r0001", "link/sales-l0001", "revert", "person:ruth", NOW, "no"))
    refused(db, REVIEW, (1, "sales-r0001", "link/sales-l0001", "reject", "person:ruth", NOW, None))
    refused(
        db,
        REVIEW,
        (1, "sales-r0009", "link/sales-l0001", "confirm", "person:ruth", NOW, None),
        message="review-id-not-in-scope",
    )
    db.execute(
        REVIEW, (1, "sales-r0001", "entity/sales-e0001@1", "confirm", "person:ruth", NOW, None)
    )
    refused(
        db, REVIEW, (2, "sales-r0002", "entity/sales-e0001@1", "confirm", "person:ruth", NOW, None)
    )
    refused(db, "UPDATE review SET reason = 'x'", message="append-only")
    refused(db, "DELETE FROM review", message="append-only")


def test_closure_refuses_bad_depths(db: sqlite3.Connection) -> None:
    refused(db, "INSERT INTO entity_closure VALUES ('sales-e0001', 'sales-e0001', 1)")
    refused(db, "INSERT INTO entity_closure VALUES ('sales-e0001', 'sales-e0002', 0)")
