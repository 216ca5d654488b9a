"""Table-level presence (seed 002): an empty or absent subsystem reads as nothing stored."""

from __future__ import annotations

from groundnote.store.sql import Connection, table_exists

__all__ = ["has_table"]


def has_table(conn: Connection, name: str) -> bool:
    """Whether a table exists; readers of a store not yet migrated see no rows, not an error."""
    return table_exists(conn, name)
