"""What a store unit holds: row counts per table, ledger versions, size on disk."""

from __future__ import annotations

from groundnote.store.database import Database

__all__ = ["file_bytes", "ledger_versions", "table_counts"]


def table_counts(db: Database) -> dict[str, int]:
    """Rows per table and virtual table; FTS shadow tables, the ledger and the gate left out."""
    names = db.tables()
    with db.read() as conn:
        return {
            name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names
        }


def ledger_versions(db: Database) -> dict[str, tuple[int, int]]:
    """subsystem → (highest version, number of migrations applied)."""
    with db.read() as conn:
        rows = conn.execute(
            "SELECT subsystem, max(version) AS v, count(*) AS n FROM migrations GROUP BY subsystem"
        ).fetchall()
    return {row["subsystem"]: (row["v"], row["n"]) for row in rows}


def file_bytes(db: Database) -> int:
    """Bytes on disk: the file and its WAL, or the schema's tables with their indexes."""
    return db.size_bytes()
