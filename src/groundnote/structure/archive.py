"""Archive: a person retires an entity, or its whole subtree children first (seed 000 G3).

Archived is terminal. An entity with active children is refused (has-children) unless the
person asks for the subtree; then every active descendant is archived first, deepest level
first, so each archive version passes the table's has-children backstop on its own.
"""

from __future__ import annotations

from groundnote.capabilities import Context
from groundnote.domain.errors import AlreadyDecided, HasChildren, VersionOutdated
from groundnote.domain.guidance import PathItem
from groundnote.store.sql import Connection
from groundnote.structure.models import ArchiveInput, EntityState
from groundnote.structure.state import entity_state
from groundnote.structure.versions import (
    current_version,
    entity_path,
    write_version,
)

__all__ = ["archive_entity"]


def archive_entity(
    ctx: Context, conn: Connection, scope: str, value: ArchiveInput
) -> tuple[list[EntityState], list[PathItem]]:
    """Archive the entity (its active subtree first, when asked) in the open transaction;
    answers what was archived, children first, and the entity's path before."""
    reason = (value.reason or "").strip() or "archived on the approval page"
    current = current_version(conn, value.id)
    if current.status == "archived":
        raise AlreadyDecided(f"{value.id} is archived already.", current=current.ref)
    if value.version != current.version:
        raise VersionOutdated(
            f"entity/{value.id}@{value.version} is not the current version; "
            f"the current one is {current.ref}.",
            remedy=f"Reload the page and look at {current.ref} before archiving.",
            current=current.ref,
        )
    below = [
        r[0]
        for r in conn.execute(
            "SELECT c.descendant_id FROM entity_closure c "
            "JOIN entity_current k ON k.id = c.descendant_id "
            "WHERE c.ancestor_id = ? AND c.depth >= 1 AND k.status <> 'archived' "
            "ORDER BY c.depth DESC, k.id",
            (value.id,),
        )
    ]
    if below and not value.subtree:
        raise HasChildren(
            f"{value.id} has {len(below)} active descendant(s); archived entities keep "
            "no active children.",
            remedy="Archive the children first, or archive the whole subtree (subtree: true).",
            children=below[:20],
        )
    at = ctx.clock.instant()
    path = entity_path(conn, value.id)
    archived: list[EntityState] = []
    for entity_id in [*below, value.id]:
        base = current_version(conn, entity_id)
        write_version(
            conn,
            base,
            change="archive",
            status="archived",
            by=ctx.actor,
            at=at,
            reason=reason,
            valid_to=max(ctx.today(), base.valid_from),
        )
        now = current_version(conn, entity_id)
        archived.append(entity_state(conn, now, scope, ctx.public_url()))
    ctx.log.refs = [f"entity/{e.id}@{e.version}" for e in archived]
    return archived, path
