"""What waits for a person (seed 000 §12), as SQL, and the state answers built from it.

Pending is the graph's definition (`graph.PENDING_VERSIONS_SQL`, `PENDING_LINKS_SQL`): agent
versions after the last version a person settled, and open proposed links without a review.
"""

from __future__ import annotations

from groundnote.graph import PENDING_LINKS_SQL, PENDING_VERSIONS_SQL
from groundnote.store.sql import Connection
from groundnote.structure.models import EntityState
from groundnote.structure.versions import VersionRow

__all__ = [
    "PENDING_LINKS_SQL",
    "PENDING_VERSIONS_SQL",
    "approval_url",
    "entity_state",
]


def approval_url(base: str, scope: str, item_id: str) -> str:
    return f"{base}/approval/structure?scope={scope}#{item_id}"


def entity_state(conn: Connection, row: VersionRow, scope: str, base_url: str) -> EntityState:
    pending = (
        conn.execute(f"{PENDING_VERSIONS_SQL} AND v.id = ? LIMIT 1", (row.id,)).fetchone()
        is not None
    )
    return EntityState(
        ref=row.ref,
        id=row.id,
        scope=scope,
        type=row.type,
        name=row.name,
        aliases=row.aliases,
        status=row.status,
        parent_id=row.parent_id,
        version=row.version,
        valid_from=row.valid_from,
        valid_to=row.valid_to,
        pending=pending,
        approval_url=approval_url(base_url, scope, row.id) if pending else None,
    )
