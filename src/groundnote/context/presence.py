"""Table-level presence (seed 002): an empty or absent subsystem reads as nothing stored."""

from __future__ import annotations

from groundnote.store.sql import Connection

__all__ = ["has_table"]


def has_table(conn: Connection, name: str) -> bool:
    """Whether a table exists; readers of a store not yet migrated see no rows, not an error."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None
