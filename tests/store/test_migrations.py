"""The migration ledger: a re-run is a no-op; an applied migration whose file changed is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundnote.store import (
    Migration,
    MigrationChecksumMismatch,
    SqliteDatabase,
    migrate,
    split_sql,
)
from groundnote.store.sql import StoreError

NOW = "2026-11-30T09:00:00.000Z"
FIRST = Migration("demo", 1, "first", "CREATE TABLE a (x INTEGER);\nINSERT INTO a VALUES (1);\n")
SECOND = Migration(
    "demo",
    2,
    "second",
    "CREATE TABLE b (y);\nCREATE TRIGGER b_guard BEFORE INSERT ON b BEGIN\n"
    "  SELECT RAISE(ABORT, 'no'); SELECT 1;\nEND;\n",
)


def test_rerun_is_a_noop(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.db")
    assert migrate(db, "demo", [FIRST, SECOND], NOW) == 2
    assert migrate(db, "demo", [FIRST, SECOND], NOW) == 0
    with db.read() as conn:
        assert conn.execute("SELECT count(*) FROM a").fetchone()[0] == 1
        rows = conn.execute("SELECT subsystem, version, name FROM migrations").fetchall()
    assert [tuple(r) for r in rows] == [("demo", 1, "first"), ("demo", 2, "second")]
    db.close()


def test_a_changed_file_is_refused(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.db")
    migrate(db, "demo", [FIRST], NOW)
    changed = Migration("demo", 1, "first", FIRST.sql + "-- edited\n")
    with pytest.raises(MigrationChecksumMismatch, match="demo/0001_first"):
        migrate(db, "demo", [changed], NOW)
    db.close()


def test_ledgers_are_per_subsystem(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.db")
    migrate(db, "demo", [FIRST], NOW)
    other = Migration("other", 1, "first", "CREATE TABLE c (z);")
    assert migrate(db, "other", [other], NOW) == 1
    db.close()


def test_a_failing_migration_leaves_nothing(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "s.db")
    broken = Migration(
        "demo", 1, "broken", "CREATE TABLE a (x);\nINSERT INTO nowhere VALUES (1);\n"
    )
    with pytest.raises(StoreError, match="no such table"):
        migrate(db, "demo", [broken], NOW)
    with db.read() as conn:
        assert (
            conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'a'").fetchone()[0] == 0
        )
        assert conn.execute("SELECT count(*) FROM migrations").fetchone()[0] == 0
    db.close()


def test_split_keeps_trigger_bodies_whole() -> None:
    assert len(split_sql(SECOND.sql)) == 2
