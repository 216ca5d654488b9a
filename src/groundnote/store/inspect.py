"""What a store file holds: row counts per table, ledger versions, size on disk."""

from __future__ import annotations

from groundnote.store.database import Database

__all__ = ["file_bytes", "ledger_versions", "table_counts"]


def table_counts(db: Database) -> dict[str, int]:
    """Rows per table and virtual table; FTS shadow tables and the ledger left out."""
    with db.read() as conn:
        names = [
            row["name"]
            for row in conn.execute("PRAGMA table_list")
            if row["schema"] == "main"
            and row["type"] in ("table", "virtual")
            and not row["name"].startswith("sqlite_")
            and row["name"] != "migrations"
        ]
        return {
            name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
            for name in sorted(names)
        }


def ledger_versions(db: Database) -> dict[str, tuple[int, int]]:
    """subsystem → (highest version, number of migrations applied)."""
    with db.read() as conn:
        rows = conn.execute(
            "SELECT subsystem, max(version) AS v, count(*) AS n FROM migrations GROUP BY subsystem"
        ).fetchall()
    return {row["subsystem"]: (row["v"], row["n"]) for row in rows}


def file_bytes(db: Database) -> int:
    total = 0
    for suffix in ("", "-wal"):
        path = db.path.with_name(db.path.name + suffix)
        if path.exists():
            total += path.stat().st_size
    return total
