"""Entity versions as the approval channel reads and writes them (seed 000 §3.2, AT3).

The approval channel's `INSERT INTO entity_version` rows (confirm, revert, archive) are
written here and nowhere else; each copies the version it follows and changes only what its
`change` allows, so the table's CHECKs and triggers stay a backstop, never the first answer.
"""

from __future__ import annotations

import json
from typing import Literal

from groundnote.domain.errors import NotFound
from groundnote.domain.guidance import PathItem
from groundnote.graph.trigram import note_version
from groundnote.store.sql import Connection, Row
from groundnote.structure.models import VersionRow

__all__ = [
    "AGENT_CHANNELS",
    "VersionRow",
    "current_version",
    "entity_path",
    "version_row",
    "write_version",
]

AGENT_CHANNELS = ("mcp", "api")


def _row(row: Row) -> VersionRow:
    return VersionRow(
        id=row["id"],
        version=row["version"],
        type=row["type"],
        name=row["name"],
        aliases=[str(a) for a in json.loads(row["aliases"])],
        parent_id=row["parent_id"],
        status=row["status"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        evidence=row["evidence"],
        change=row["change"],
        channel=row["channel"],
        changed_by=row["changed_by"],
        changed_at=row["changed_at"],
        reason=row["reason"],
        aliases_json=row["aliases"],
    )


def version_row(conn: Connection, entity_id: str, version: int) -> VersionRow | None:
    row = conn.execute(
        "SELECT * FROM entity_version WHERE id = ? AND version = ?", (entity_id, version)
    ).fetchone()
    return _row(row) if row is not None else None


def current_version(conn: Connection, entity_id: str) -> VersionRow:
    row = conn.execute("SELECT * FROM entity_current WHERE id = ?", (entity_id,)).fetchone()
    if row is None:
        raise NotFound(
            f"There is no entity {entity_id}.",
            remedy="Reload the approval page; the item list shows what waits for a decision.",
        )
    return _row(row)


def entity_path(conn: Connection, entity_id: str) -> list[PathItem]:
    """The breadcrumb from the top level down to the entity itself (seed 000 §6)."""
    return [
        PathItem(id=r["id"], name=r["name"], type=r["type"])
        for r in conn.execute(
            "SELECT k.id, k.name, k.type FROM entity_closure c "
            "JOIN entity_current k ON k.id = c.ancestor_id "
            "WHERE c.descendant_id = ? ORDER BY c.depth DESC",
            (entity_id,),
        )
    ]


def write_version(
    conn: Connection,
    base: VersionRow,
    *,
    change: Literal["confirm", "revert", "archive"],
    status: Literal["active", "archived"],
    by: str,
    at: str,
    reason: str,
    valid_to: str | None = None,
    restore: VersionRow | None = None,
) -> int:
    """Append the person's version after `base`; `restore` supplies the fields a revert brings back."""
    source = restore or base
    version = base.version + 1
    conn.execute(
        "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, "
        "valid_from, valid_to, evidence, change, channel, changed_by, changed_at, reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'approval', ?, ?, ?)",
        (
            base.id,
            version,
            source.type,
            source.name,
            source.aliases_json,
            source.parent_id,
            status,
            base.valid_from,
            valid_to,
            source.evidence,
            change,
            by,
            at,
            reason,
        ),
    )
    seq = conn.execute("SELECT seq FROM entity WHERE id = ?", (base.id,)).fetchone()[0]
    note_version(conn, int(seq))
    return version
