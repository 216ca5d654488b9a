"""The home: `groundnote.json`, `instance.db`, `scopes/<scope>.db`, `work/cache/` (free to
delete).

`work/` follows a content project's layout (`.groundnote/work/`), so a home kept in a content
project's `.groundnote` shares the folder with the project's store without a clash: there, as
here, only `work/cache/` is free to delete; `work/store.db` holds staged unit state.

The home knows the layout and the scope registry; which subsystems live in which file is
handed in by the composition root (`groundnote.runtime`), so the store imports no subsystem.

With a database URL (`database.url`, DESIGN §4) the instance and every scope live in that
PostgreSQL database instead, one schema each (`groundnote`, `scope_<scope>`); the folder
still holds `groundnote.json` and `work/`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundnote.domain.clock import Clock
from groundnote.domain.errors import ValidationFailed, scope_refusal
from groundnote.store.database import DEFAULT_BUSY_TIMEOUT, Database
from groundnote.store.migrate import refuse_unfinished
from groundnote.store.migrations import Migration, migrate
from groundnote.store.schemas import INSTANCE_SCHEMA, schema_for
from groundnote.store.sql import Backend, Connection, IntegrityError
from groundnote.store.sqlite import SqliteDatabase

__all__ = ["Home", "ScopeInfo", "Subsystem", "home_exists"]

_SCOPE = re.compile(r"^[a-z][a-z0-9-]{1,39}\Z")


def home_exists(path: Path, database_url: str | None = None) -> bool:
    """Whether a home was made here: `instance.db` in the folder, or with a database, the
    folder and the instance's schema in that database."""
    if database_url is None:
        return (path / "instance.db").is_file()
    from groundnote.store.postgres import schema_exists

    return path.is_dir() and schema_exists(database_url, INSTANCE_SCHEMA)


@dataclass(frozen=True)
class Subsystem:
    """A subsystem's tables: its name (the ledger key) and its ordered migrations; optionally
    a check of its own invariants for `groundnote check` (a projection equal to its rebuild),
    and what in its tables waits for a person, counted for `status`."""

    name: str
    migrations: Sequence[Migration]
    check: Callable[[Database], list[str]] | None = None
    pending: Callable[[Connection], dict[str, int]] | None = None


@dataclass(frozen=True)
class ScopeInfo:
    name: str
    created_at: str
    approval_mode: str
    repo: str | None


class Home:
    def __init__(
        self,
        path: Path,
        clock: Clock,
        *,
        instance_subsystems: Sequence[Subsystem],
        scope_subsystems: Sequence[Subsystem],
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        database_url: str | None = None,
        pool_size: int | None = None,
    ) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.clock = clock
        self.database_url = database_url
        self._pool_size = pool_size
        self.scope_subsystems = list(scope_subsystems)
        folders = [path, path / "work" / "cache"]
        if database_url is None:
            folders.insert(1, path / "scopes")
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
        self.instance = self._unit(None)
        for subsystem in instance_subsystems:
            migrate(self.instance, subsystem.name, list(subsystem.migrations), clock.instant())
        refuse_unfinished(self.instance)  # a migrate into it that never finished
        self._scopes: dict[str, Database] = {}
        # Found scopes only: a scope row is never changed or deleted, but another process may
        # create one, so a miss must ask instance.db again.
        self._infos: dict[str, ScopeInfo] = {}
        self._lock = threading.Lock()

    # -- the registry ------------------------------------------------------------------------

    def scope_names(self) -> list[str]:
        with self.instance.read() as conn:
            return [r["name"] for r in conn.execute("SELECT name FROM scope ORDER BY name")]

    def scope_info(self, name: str) -> ScopeInfo:
        info = self._infos.get(name)
        if info is not None:
            return info
        with self.instance.read() as conn:
            row = conn.execute("SELECT * FROM scope WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise scope_refusal()
        info = ScopeInfo(row["name"], row["created_at"], row["approval_mode"], row["repo"])
        self._infos[name] = info
        return info

    def create_scope(
        self, name: str, *, approval_mode: str = "person", repo: str | None = None
    ) -> ScopeInfo:
        if not _SCOPE.match(name):
            raise ValidationFailed(
                f"scope name {name!r} is not allowed",
                remedy="Use 2–40 characters: a lowercase letter first, then lowercase letters, digits or '-'.",
            )
        if approval_mode not in ("person", "auto"):
            raise ValidationFailed(
                f"approval mode {approval_mode!r} is not allowed; use person or auto"
            )
        try:
            with self.instance.write() as conn:
                conn.execute(
                    "INSERT INTO scope (name, created_at, approval_mode, repo) VALUES (?,?,?,?)",
                    (name, self.clock.instant(), approval_mode, repo),
                )
        except IntegrityError as exc:
            raise ValidationFailed(
                f"scope {name!r} exists already", remedy="`groundnote scope list` shows the scopes."
            ) from exc
        db = self._open_scope(name)
        with db.write() as conn:
            conn.execute("UPDATE meta SET scope = ?", (name,))
        return self.scope_info(name)

    # -- the store units ---------------------------------------------------------------------

    @property
    def backend(self) -> Backend:
        return "sqlite" if self.database_url is None else "postgresql"

    def scope_path(self, name: str) -> Path:
        """The file of a scope on SQLite (on PostgreSQL a scope is a schema, no file)."""
        return self.path / "scopes" / f"{name}.db"

    def instance_label(self) -> str:
        return "instance.db" if self.database_url is None else f"schema {INSTANCE_SCHEMA}"

    def scope_label(self, name: str) -> str:
        if self.database_url is None:
            return f"scopes/{name}.db"
        return f"schema {schema_for(name)}"

    def _unit(self, scope: str | None) -> Database:
        """A handle on the instance's (None) or a scope's unit, not migrated."""
        if self.database_url is None:
            path = self.path / "instance.db" if scope is None else self.scope_path(scope)
            return SqliteDatabase(path, self.busy_timeout)
        # imported here: a SQLite home never loads the driver (140 ms)
        from groundnote.store.postgres import DEFAULT_POOL_SIZE, PostgresDatabase

        return PostgresDatabase(
            self.database_url,
            INSTANCE_SCHEMA if scope is None else schema_for(scope),
            self.busy_timeout,
            pool_size=self._pool_size or DEFAULT_POOL_SIZE,
        )

    def open_unmigrated(self, name: str) -> Database:
        """A fresh handle on a scope's unit as it is (for `check`); the caller closes it."""
        return self._unit(name)

    def scope_db(self, name: str) -> Database:
        """The store file of a registered scope; an unknown name gets the one scope refusal."""
        with self._lock:
            db = self._scopes.get(name)
        if db is not None:
            return db
        self.scope_info(name)
        return self._open_scope(name)

    def _open_scope(self, name: str) -> Database:
        with self._lock:
            db = self._scopes.get(name)
            if db is None:
                db = self._unit(name)
                for subsystem in self.scope_subsystems:
                    migrate(db, subsystem.name, list(subsystem.migrations), self.clock.instant())
                self._scopes[name] = db
            return db

    def close(self) -> None:
        with self._lock:
            for db in self._scopes.values():
                db.close()
            self._scopes.clear()
        self.instance.close()
