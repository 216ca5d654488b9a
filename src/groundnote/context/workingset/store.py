"""Unit state: the committed records projected from the shards, plus staged decisions."""

from __future__ import annotations

from collections.abc import Iterable

from groundnote.context.presence import has_table
from groundnote.context.sources import StateRecord
from groundnote.store import Database, Subsystem, load_migrations
from groundnote.store.sql import Row

__all__ = ["SUBSYSTEM", "WorkingSet"]

SUBSYSTEM = Subsystem("workingset", load_migrations("groundnote.context.workingset", "workingset"))

_COLUMNS = "document, unit, variant, decision, target_hash, source_basis, by_actor, at, staged"


def _row(record: StateRecord, staged: bool) -> tuple[object, ...]:
    return (
        record.document,
        record.unit,
        record.variant,
        record.decision,
        record.target_hash,
        record.source_basis,
        record.by,
        record.at,
        int(staged),
    )


def _record(row: Row) -> StateRecord:
    return StateRecord.model_validate(
        {
            "document": row["document"],
            "unit": row["unit"],
            "variant": row["variant"],
            "decision": row["decision"],
            "target_hash": row["target_hash"],
            "source_basis": row["source_basis"],
            "by": row["by_actor"],
            "at": row["at"],
        }
    )


class WorkingSet:
    def __init__(self, db: Database) -> None:
        self.db = db

    def load_committed(self, records: Iterable[StateRecord]) -> None:
        """Mirror the shards; a staged decision for the same unit is newer and stays."""
        with self.db.write() as conn:
            conn.execute("DELETE FROM unit_states WHERE staged = 0")
            conn.executemany(
                f"INSERT INTO unit_states ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (document, unit, variant) DO NOTHING",
                [_row(r, staged=False) for r in records],
            )

    def stage(self, record: StateRecord) -> None:
        """Record a decision; it lives only here until `commit` writes it to its shard."""
        with self.db.write() as conn:
            conn.execute(
                f"INSERT INTO unit_states ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (document, unit, variant) DO UPDATE SET "
                "decision = excluded.decision, target_hash = excluded.target_hash, "
                "source_basis = excluded.source_basis, by_actor = excluded.by_actor, "
                "at = excluded.at, staged = 1",
                _row(record, staged=True),
            )

    def records(self, *, staged: bool | None = None) -> list[StateRecord]:
        """Every record (or only staged / only committed ones), in key order."""
        with self.db.read() as conn:
            if not has_table(conn, "unit_states"):
                return []
            where = "" if staged is None else f"WHERE staged = {int(staged)}"
            rows = conn.execute(
                f"SELECT * FROM unit_states {where} ORDER BY document, unit, variant"
            ).fetchall()
        return [_record(row) for row in rows]

    def mark_committed(self, records: Iterable[StateRecord]) -> None:
        with self.db.write() as conn:
            conn.executemany(
                "UPDATE unit_states SET staged = 0 WHERE document = ? AND unit = ? AND variant = ?",
                [r.key for r in records],
            )

    def variants(self) -> list[str]:
        with self.db.read() as conn:
            if not has_table(conn, "unit_states"):
                return []
            return [r[0] for r in conn.execute("SELECT DISTINCT variant FROM unit_states")]
