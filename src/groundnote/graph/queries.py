"""Reads of the tree (seed 000 §6): current versions, paths, children, pending, the tree."""

from __future__ import annotations

import json
from typing import Any

from groundnote.domain.guidance import PathItem
from groundnote.graph.models import EntityOut, TreeNode, VersionOut
from groundnote.store.sql import Connection, Cursor, Row, in_list

__all__ = [
    "PAGE_SIZE",
    "TREE_MAX_DEPTH",
    "TREE_MAX_NODES",
    "approval_url",
    "ask_answered",
    "ask_path",
    "child_nodes",
    "current",
    "descendant_ids",
    "entity_out",
    "level",
    "level_counts",
    "path_from",
    "path_items",
    "paths_of",
    "subtree_depth",
    "top_level_page",
    "versions",
]

PAGE_SIZE = 50
TREE_MAX_DEPTH = 3
TREE_MAX_NODES = 200

# What waits for a person (seed 000 §12): an agent version (mcp/api) after the last version a
# person settled — one written on the approval channel, or one a review names. A review can
# only name the current version, so it settles the agent versions before it as well; the seed's
# wording ("that have no review") would leave those pending for ever.
SETTLED = """coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = {id}
  AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
       WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)"""
PENDING = (
    "EXISTS (SELECT 1 FROM entity_version pv WHERE pv.id = {id} AND pv.channel IN ('mcp','api') "
    "AND pv.version > " + SETTLED + ")"
)
PENDING_VERSIONS_SQL = (
    "SELECT v.* FROM entity_version v WHERE v.channel IN ('mcp','api') AND v.version > "
    + SETTLED.format(id="v.id")
)
PENDING_LINKS_SQL = (
    "SELECT l.* FROM link l WHERE l.origin = 'proposed' AND l.valid_to IS NULL "
    "AND NOT EXISTS (SELECT 1 FROM review r WHERE r.target = 'link/' || l.id)"
)


def pending_counts(conn: Connection) -> dict[str, int]:
    """Entities with pending versions and proposed links without a review, for `status`: the
    counters graph/0007's triggers keep (graph/counters.py checks them against the above)."""
    kept = {
        str(r[0]): int(r[1])
        for r in conn.execute(
            "SELECT name, n FROM tally WHERE name IN ('pending:entity', 'pending:link')"
        )
    }
    return {"entities": kept.get("pending:entity", 0), "links": kept.get("pending:link", 0)}


CHILDREN = """(SELECT count(*) FROM entity_closure g JOIN entity_current h ON h.id = g.descendant_id
  WHERE g.ancestor_id = {id} AND g.depth = 1 AND h.status <> 'archived')"""


def current(conn: Connection, entity_id: str) -> Row | None:
    row: Row | None = conn.execute(
        "SELECT e.seq, e.scope, k.* FROM entity e JOIN entity_current k ON k.id = e.id "
        "WHERE e.id = ?",
        (entity_id,),
    ).fetchone()
    return row


def ask_answered(conn: Connection, entity_id: str) -> Cursor:
    """Send the question for the current row as an answer shows it, with whether it waits for
    a person and how many children it has (one statement; its one row, or none, is read
    later: `Connection.prefetch`)."""
    return conn.prefetch(
        "SELECT e.seq, e.scope, k.*, " + PENDING.format(id="e.id") + " AS pending, "
        + CHILDREN.format(id="e.id") + " AS children "
        "FROM entity e JOIN entity_current k ON k.id = e.id WHERE e.id = ?",
        (entity_id,),
    )  # fmt: skip


def level(conn: Connection, entity_id: str) -> int:
    """1 for a top-level entity: the levels of the tree down to it, itself included."""
    found: int = conn.execute(
        "SELECT count(*) FROM entity_closure WHERE descendant_id = ?", (entity_id,)
    ).fetchone()[0]
    return found


def subtree_depth(conn: Connection, entity_id: str) -> int:
    """How many levels lie below the entity (0 for a leaf)."""
    found: int = conn.execute(
        "SELECT coalesce(max(depth), 0) FROM entity_closure WHERE ancestor_id = ?", (entity_id,)
    ).fetchone()[0]
    return found


def descendant_ids(conn: Connection, entity_id: str) -> list[str]:
    """The entity and every entity below it, nearest first."""
    rows = conn.execute(
        "SELECT descendant_id FROM entity_closure WHERE ancestor_id = ? ORDER BY depth, "
        "descendant_id",
        (entity_id,),
    ).fetchall()
    return [r[0] for r in rows]


def path_items(conn: Connection, entity_id: str) -> list[PathItem]:
    return path_from(ask_path(conn, entity_id))


def ask_path(conn: Connection, entity_id: str) -> Cursor:
    """Send the question `path_from` reads (`Connection.prefetch`)."""
    return conn.prefetch(
        "SELECT k.id, k.name, k.type FROM entity_closure c JOIN entity_current k "
        "ON k.id = c.ancestor_id WHERE c.descendant_id = ? ORDER BY c.depth DESC",
        (entity_id,),
    )


def path_from(asked: Cursor) -> list[PathItem]:
    """The path, top level first, from the answer to `ask_path`."""
    return [PathItem(id=r["id"], name=r["name"], type=r["type"]) for r in asked.fetchall()]


def paths_of(conn: Connection, entity_ids: list[str]) -> dict[str, list[PathItem]]:
    """`path_items` of each entity, in one statement."""
    if not entity_ids:
        return {}
    marks, wanted = in_list(entity_ids)
    out: dict[str, list[PathItem]] = {}
    for r in conn.execute(
        "SELECT c.descendant_id, k.id, k.name, k.type FROM entity_closure c JOIN entity_current k "
        f"ON k.id = c.ancestor_id WHERE c.descendant_id IN ({marks}) "
        "ORDER BY c.descendant_id, c.depth DESC",
        wanted,
    ):
        out.setdefault(r["descendant_id"], []).append(
            PathItem(id=r["id"], name=r["name"], type=r["type"])
        )
    return out


def approval_url(public_url: str, scope: str, entity_id: str) -> str:
    return f"{public_url}/approval/structure?scope={scope}#{entity_id}"


def entity_out(row: Row, public_url: str) -> EntityOut:
    """The answer's entity, from a row of `answered`."""
    pending = bool(row["pending"])
    return EntityOut(
        ref=f"entity/{row['id']}",
        id=row["id"],
        scope=row["scope"],
        type=row["type"],
        name=row["name"],
        aliases=json.loads(row["aliases"]),
        status=row["status"],
        parent_id=row["parent_id"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        children=row["children"],
        pending=pending,
        approval_url=approval_url(public_url, row["scope"], row["id"]) if pending else None,
    )


def versions(conn: Connection, entity_id: str) -> list[VersionOut]:
    rows = conn.execute(
        "SELECT v.*, EXISTS (SELECT 1 FROM review r WHERE r.target = 'entity/' || v.id || '@' "
        "|| v.version) AS reviewed FROM entity_version v WHERE v.id = ? ORDER BY v.version",
        (entity_id,),
    ).fetchall()
    return [
        VersionOut(
            version=r["version"],
            change=r["change"],
            type=r["type"],
            name=r["name"],
            aliases=json.loads(r["aliases"]),
            parent_id=r["parent_id"],
            status=r["status"],
            channel=r["channel"],
            changed_by=r["changed_by"],
            changed_at=r["changed_at"],
            reason=r["reason"],
            evidence=r["evidence"],
            reviewed=bool(r["reviewed"]),
        )
        for r in rows
    ]


_NODE_COLUMNS = (
    "k.id, k.name, k.type, k.status, "
    + CHILDREN.format(id="k.id")
    + " AS children, "
    + PENDING.format(id="k.id")
    + " AS pending"
)


def child_nodes(conn: Connection, entity_id: str, page: int) -> list[TreeNode]:
    """One page of direct children (not archived), by name (how many there are is the
    parent's `children`)."""
    rows = conn.execute(
        f"SELECT {_NODE_COLUMNS} FROM entity_closure c JOIN entity_current k "
        "ON k.id = c.descendant_id WHERE c.ancestor_id = ? AND c.depth = 1 "
        "AND k.status <> 'archived' ORDER BY lower(k.name), k.id LIMIT ? OFFSET ?",
        (entity_id, PAGE_SIZE, (page - 1) * PAGE_SIZE),
    ).fetchall()
    return [_node(r) for r in rows]


def top_level_page(conn: Connection, page: int) -> tuple[list[TreeNode], int]:
    # The page's ids first (entity_version_parent finds the top level), then the counts of
    # children and what waits for those 50 only, not for every entity at the top.
    rows = conn.execute(
        f"SELECT {_NODE_COLUMNS} FROM entity_current k WHERE k.id IN (SELECT p.id "
        "FROM entity_current p WHERE p.parent_id IS NULL AND p.status <> 'archived' "
        "ORDER BY lower(p.name), p.id LIMIT ? OFFSET ?) ORDER BY lower(k.name), k.id",
        (PAGE_SIZE, (page - 1) * PAGE_SIZE),
    ).fetchall()
    total = conn.execute("SELECT n FROM tally WHERE name = 'top_level'").fetchone()
    return [_node(r) for r in rows], int(total[0]) if total is not None else 0


def level_counts(conn: Connection, entity_id: str, depth: int) -> dict[str, int]:
    rows = conn.execute(
        "SELECT c.depth, count(*) FROM entity_closure c JOIN entity_current k "
        "ON k.id = c.descendant_id WHERE c.ancestor_id = ? AND c.depth BETWEEN 1 AND ? "
        "AND k.status <> 'archived' GROUP BY c.depth",
        (entity_id, depth),
    ).fetchall()
    return {str(r[0]): r[1] for r in rows}


def _node(row: Any) -> TreeNode:
    return TreeNode(
        id=row["id"],
        name=row["name"],
        type=row["type"],
        status=row["status"],
        children=row["children"],
        hidden_children=row["children"],
        pending=bool(row["pending"]),
    )
