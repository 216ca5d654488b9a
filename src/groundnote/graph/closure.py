"""entity_closure: every (ancestor, descendant, depth) pair of the tree (seed 000 §3.2, AT5).

The only module that writes entity_closure. It runs after the version insert, inside the
same transaction; `rebuild_closure` recomputes it from entity_current.parent_id.
"""

from __future__ import annotations

from groundnote.store import Database
from groundnote.store.sql import Connection

__all__ = [
    "closure_drift",
    "closure_rows",
    "fill_closure",
    "on_create",
    "on_move",
    "rebuild_closure",
]


def on_create(conn: Connection, entity_id: str, parent_id: str | None) -> None:
    if parent_id is None:
        conn.execute(
            "INSERT INTO entity_closure (ancestor_id, descendant_id, depth) VALUES (?, ?, 0)",
            (entity_id, entity_id),
        )
        return
    # The entity itself and every ancestor of its parent, in one statement.
    conn.execute(
        "INSERT INTO entity_closure (ancestor_id, descendant_id, depth) SELECT ?, ?, 0 "
        "UNION ALL SELECT ancestor_id, ?, depth + 1 FROM entity_closure WHERE descendant_id = ?",
        (entity_id, entity_id, entity_id, parent_id),
    )


def on_move(conn: Connection, entity_id: str, new_parent_id: str | None) -> None:
    """Detach the subtree from its old ancestors and hang it under the new parent."""
    conn.execute(
        "DELETE FROM entity_closure "
        "WHERE descendant_id IN (SELECT descendant_id FROM entity_closure WHERE ancestor_id = :x) "
        "AND ancestor_id NOT IN (SELECT descendant_id FROM entity_closure WHERE ancestor_id = :x)",
        {"x": entity_id},
    )
    if new_parent_id is not None:  # nothing to add for a move to the top level
        conn.execute(
            "INSERT INTO entity_closure (ancestor_id, descendant_id, depth) "
            "SELECT p.ancestor_id, s.descendant_id, p.depth + s.depth + 1 "
            "FROM entity_closure p JOIN entity_closure s ON s.ancestor_id = :x "
            "WHERE p.descendant_id = :new_parent",
            {"x": entity_id, "new_parent": new_parent_id},
        )


_WALK = """
WITH RECURSIVE cur(id, parent_id) AS (SELECT id, parent_id FROM entity_current),
walk(ancestor_id, descendant_id, depth) AS (
  SELECT id, id, 0 FROM cur
  UNION ALL
  SELECT c.parent_id, w.descendant_id, w.depth + 1
  FROM walk w JOIN cur c ON c.id = w.ancestor_id WHERE c.parent_id IS NOT NULL)
"""


def closure_rows(conn: Connection) -> set[tuple[str, str, int]]:
    """The closure as entity_current's parent ids define it, without writing anything."""
    rows = conn.execute(_WALK + "SELECT ancestor_id, descendant_id, depth FROM walk").fetchall()
    return {(r[0], r[1], r[2]) for r in rows}


def fill_closure(conn: Connection) -> int:
    """Recompute entity_closure from entity_current inside the caller's write; its rows."""
    conn.execute("DELETE FROM entity_closure")
    # The WITH inside the INSERT: Citus 13.2 sends `WITH RECURSIVE … INSERT` to the worker
    # without its RECURSIVE ('relation "walk" does not exist'), so a scope import failed there.
    conn.execute(
        "INSERT INTO entity_closure (ancestor_id, descendant_id, depth) "
        + _WALK
        + "SELECT ancestor_id, descendant_id, depth FROM walk"
    )
    count: int = conn.execute("SELECT count(*) FROM entity_closure").fetchone()[0]
    return count


def rebuild_closure(db: Database) -> int:
    """Recompute entity_closure from entity_current; returns the number of rows."""
    with db.write() as conn:
        return fill_closure(conn)


def closure_drift(db: Database, scope: str) -> list[str]:
    """How entity_closure differs from what entity_current's parents give (none: equal)."""
    with db.read() as conn:
        missing = conn.execute(
            _WALK + "SELECT count(*) FROM (SELECT ancestor_id, descendant_id, depth FROM walk "
            "EXCEPT SELECT ancestor_id, descendant_id, depth FROM entity_closure) AS d"
        ).fetchone()[0]
        extra = conn.execute(
            _WALK
            + "SELECT count(*) FROM (SELECT ancestor_id, descendant_id, depth FROM entity_closure "
            "EXCEPT SELECT ancestor_id, descendant_id, depth FROM walk) AS d"
        ).fetchone()[0]
    remedy = f"run `groundnote rebuild closure --scope {scope}`"
    problems = []
    if missing:
        problems.append(f"entity_closure lacks {missing} rows of the tree; {remedy}")
    if extra:
        problems.append(f"entity_closure holds {extra} rows the tree does not; {remedy}")
    return problems
