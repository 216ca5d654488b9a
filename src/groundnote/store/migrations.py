"""A migration ledger per subsystem (seed 002: `storage.Migrate(db, "<subsystem>", …)`).

Migrations are ordered SQL files `NNNN_name.sql` in a subsystem's `migrations/` folder; the
PostgreSQL form of each is its twin `migrations/postgresql/NNNN_name.sql` (same number and
name). Each runs in one write transaction together with its ledger row; a re-run is a no-op;
a file whose text changed after it was applied is refused, because the database no longer
matches what the code believes it contains. Each store unit (a file, a schema) keeps its own
ledger, holding the checksum of the file that backend ran.

Two processes opening one new unit do not race: every step runs in `db.write()`, behind the
unit's cross-process lock (SQLite's file lock, PostgreSQL's gate row), and looks again
whether its version was applied meanwhile.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

from groundnote.store import citus
from groundnote.store.database import Database
from groundnote.store.sql import Backend, Connection, table_exists

__all__ = [
    "Migration",
    "MigrationChecksumMismatch",
    "MissingTwin",
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


class MissingTwin(RuntimeError):
    """A migration has no PostgreSQL form, so a PostgreSQL store cannot be brought up to date."""


@dataclass(frozen=True)
class Migration:
    subsystem: str
    version: int
    name: str
    sql: str
    #: The PostgreSQL twin's text; None when the package ships none.
    postgresql: str | None = None
    #: Where the twin is (or would be), for the message when it is missing.
    twin_path: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    def script(self, backend: Backend) -> str:
        """The text this backend runs."""
        if backend == "sqlite":
            return self.sql
        if self.postgresql is None:
            raise MissingTwin(
                f"migration {self.subsystem}/{self.version:04d}_{self.name} has no PostgreSQL "
                f"form: add {self.twin_path or 'migrations/postgresql/' + self.file_name} "
                "(same number and name as the SQLite file)."
            )
        return self.postgresql

    def sha256_for(self, backend: Backend) -> str:
        return hashlib.sha256(self.script(backend).encode()).hexdigest()

    @property
    def file_name(self) -> str:
        return f"{self.version:04d}_{self.name}.sql"


def load_migrations(package: str, subsystem: str) -> list[Migration]:
    """The migrations shipped in `<package>/migrations/`, in version order, each with its
    PostgreSQL twin from `<package>/migrations/postgresql/` where there is one."""
    folder = resources.files(package) / "migrations"
    twins = folder / "postgresql"
    found = []
    for entry in folder.iterdir():
        match = _FILE.match(entry.name)
        if match:
            twin = twins / entry.name
            found.append(
                Migration(
                    subsystem,
                    int(match.group(1)),
                    match.group(2),
                    entry.read_text("utf-8"),
                    postgresql=twin.read_text("utf-8") if twin.is_file() else None,
                    twin_path=f"src/{package.replace('.', '/')}/migrations/postgresql/{entry.name}",
                )
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
        if not table_exists(conn, "migrations"):
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
            _run(conn, migration.script(db.backend), db.backend)
            conn.execute(
                "INSERT INTO migrations (subsystem, version, name, applied_at, sha256) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    subsystem,
                    migration.version,
                    migration.name,
                    applied_at,
                    migration.sha256_for(db.backend),
                ),
            )
        ran += 1
    return ran


def _run(conn: Connection, script: str, backend: Backend) -> None:
    """SQLite takes one statement per call; PostgreSQL runs a whole script (PL/pgSQL `$$`
    bodies and all) in one call without parameters."""
    if backend == "postgresql":
        citus.run_script(conn, script)
        return
    for statement in split_sql(script):
        conn.execute(statement)


def _check_unchanged(
    db: Database, subsystem: str, migrations: list[Migration], done: dict[int, str]
) -> None:
    for migration in migrations:
        if done[migration.version] != migration.sha256_for(db.backend):
            raise MigrationChecksumMismatch(
                f"{db.label}: migration {subsystem}/{migration.version:04d}_{migration.name} "
                "was applied from a different file. Restore the original file, or move the "
                "change into a new migration."
            )
