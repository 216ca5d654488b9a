"""A migration ledger per subsystem (seed 002: `storage.Migrate(db, "<subsystem>", …)`).

Migrations are ordered SQL files `NNNN_name.sql` in a subsystem's `migrations/` folder.
Each runs in one transaction together with its ledger row; a re-run is a no-op; a file
whose text changed after it was applied is refused, because the database no longer
matches what the code believes it contains.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

from groundnote.store.database import Database

__all__ = [
    "Migration",
    "MigrationChecksumMismatch",
    "applied",
    "load_migrations",
    "migrate",
    "split_sql",
]

_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql\Z")

LEDGER = """
CREATE TABLE IF NOT EXISTS migrations (
  subsystem TEXT NOT NULL,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (subsystem, version))
"""


class MigrationChecksumMismatch(RuntimeError):
    """An applied migration's file changed; the database and the code disagree."""


@dataclass(frozen=True)
class Migration:
    subsystem: str
    version: int
    name: str
    sql: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(package: str, subsystem: str) -> list[Migration]:
    """The migrations shipped in `<package>/migrations/`, in version order."""
    folder = resources.files(package) / "migrations"
    found = []
    for entry in folder.iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(
                Migration(subsystem, int(match.group(1)), match.group(2), entry.read_text("utf-8"))
            )
    return sorted(found, key=lambda m: m.version)


def split_sql(script: str) -> list[str]:
    """Split a script into statements; trigger bodies keep their inner semicolons."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = pending.strip()
            if statement.rstrip(";").strip():
                statements.append(statement)
            pending = ""
    if pending.strip() and not _only_comments(pending):
        raise ValueError(f"migration ends inside a statement: {pending.strip()[:80]!r}")
    return statements


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in text.splitlines())


def applied(db: Database, subsystem: str) -> dict[int, str]:
    """version → sha256 of what the ledger holds for one subsystem."""
    with db.read() as conn:
        if not conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
        ).fetchone():
            return {}
        rows = conn.execute(
            "SELECT version, sha256 FROM migrations WHERE subsystem = ?", (subsystem,)
        ).fetchall()
    return {row["version"]: row["sha256"] for row in rows}


def migrate(db: Database, subsystem: str, migrations: list[Migration], applied_at: str) -> int:
    """Apply what is missing; return how many migrations ran.

    A file that is up to date is only read: opening a scope never waits for its writers.
    """
    for migration in migrations:
        if migration.subsystem != subsystem:
            raise ValueError(f"{migration.name} belongs to {migration.subsystem}, not {subsystem}")
    done = applied(db, subsystem)
    if all(m.version in done for m in migrations):
        _check_unchanged(db, subsystem, migrations, done)
        return 0
    with db.write() as conn:
        conn.execute(LEDGER)
    ran = 0
    for migration in migrations:
        if migration.version in done:
            _check_unchanged(db, subsystem, [migration], done)
            continue
        with db.write() as conn:
            # Another process opening the same file may have applied it since `done` was read.
            if conn.execute(
                "SELECT 1 FROM migrations WHERE subsystem = ? AND version = ?",
                (subsystem, migration.version),
            ).fetchone():
                continue
            for statement in split_sql(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (subsystem, version, name, applied_at, sha256) "
                "VALUES (?, ?, ?, ?, ?)",
                (subsystem, migration.version, migration.name, applied_at, migration.sha256),
            )
        ran += 1
    return ran


def _check_unchanged(
    db: Database, subsystem: str, migrations: list[Migration], done: dict[int, str]
) -> None:
    for migration in migrations:
        if done[migration.version] != migration.sha256:
            raise MigrationChecksumMismatch(
                f"{db.path}: migration {subsystem}/{migration.version:04d}_{migration.name} "
                "was applied from a different file. Restore the original file, or move the "
                "change into a new migration."
            )
