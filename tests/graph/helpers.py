"""Shared helpers of the graph tests: what only the approval channel or core writes."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from groundnote.core.propose import insert_rule
from groundnote.runtime import Runtime
from groundnote.structure.versions import current_version, write_version


def archive(runtime: Runtime, scope: str, entity_id: str) -> None:
    """What structure/ does when a person archives an entity (not this package's writer)."""
    with runtime.home.scope_db(scope).write() as conn:
        base = current_version(conn, entity_id)
        write_version(
            conn,
            base,
            change="archive",
            status="archived",
            by="person:ruth",
            at="2026-11-30T09:00:00.000Z",
            reason="gone",
            valid_to="2026-11-30",
        )


def store_mail(
    runtime: Runtime,
    scope: str,
    message_id: str,
    subject: str,
    in_reply_to: str | None = None,
    attachments: int = 0,
) -> str:
    """A stored mail as core keeps it (core's writer is built elsewhere)."""
    source_id = f"mail:<{message_id}>"
    with runtime.home.scope_db(scope).write() as conn:
        seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM source").fetchone()[0]
        conn.execute(
            "INSERT INTO source (seq, id, kind, title, day, sent_at, sender, in_reply_to, body, "
            "content_sha256, stored_at, stored_by) VALUES (?, ?, 'mail', ?, '2026-11-29', "
            "'2026-11-29T08:00:00.000Z', 'a@example.org', ?, 'body', 'x', "
            "'2026-11-29T08:00:00.000Z', 'grant:agent')",
            (seq, source_id, subject, in_reply_to),
        )
        for n in range(1, attachments + 1):
            conn.execute(
                "INSERT INTO source_attachment (source_id, n, filename, media_type, size, sha256) "
                "VALUES (?, ?, ?, 'application/pdf', 10, 'y')",
                (source_id, n, f"file{n}.pdf"),
            )
    return source_id


def store_rule(
    runtime: Runtime, scope: str, statement: str, refs: list[str], supersedes: str | None = None
) -> str:
    with runtime.home.scope_db(scope).write() as conn:
        seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM rule").fetchone()[0]
        rule_id = f"{scope}-{seq:04d}"
        # As propose writes it: the rule with its evidence rows and its full-text entry.
        insert_rule(
            conn,
            {
                "seq": seq,
                "id": rule_id,
                "statement": statement,
                "evidence_refs": json.dumps(refs),
                "valid_from": "2026-11-01",
                "supersedes": supersedes,
                "proposed_at": "2026-11-01T08:00:00.000Z",
                "proposed_by": "grant:agent",
                "channel": "mcp",
            },
        )
    return rule_id


def raw(runtime: Runtime, scope: str) -> sqlite3.Connection:
    """A plain sqlite3 connection to the scope file, bypassing every line of our code."""
    conn = sqlite3.connect(runtime.home.scope_path(scope), isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def log_rows(runtime: Runtime, scope: str, operation: str) -> list[dict[str, Any]]:
    with runtime.home.scope_db(scope).read() as conn:
        rows = conn.execute(
            "SELECT * FROM search_log WHERE operation = ? ORDER BY at", (operation,)
        ).fetchall()
    return [dict(r) for r in rows]
