"""The home: `groundnote.json`, `instance.db`, `scopes/<scope>.db`, `work/cache/` (free to
delete).

`work/` follows a content project's layout (`.groundnote/work/`), so a home kept in a content
project's `.groundnote` shares the folder with the project's store without a clash: there, as
here, only `work/cache/` is free to delete; `work/store.db` holds staged unit state.

The home knows the layout and the scope registry; which subsystems live in which file is
handed in by the composition root (`groundnote.runtime`), so the store imports no subsystem.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundnote.domain.clock import Clock
from groundnote.domain.errors import ValidationFailed, scope_refusal
from groundnote.store.database import DEFAULT_BUSY_TIMEOUT, Database
from groundnote.store.migrations import Migration, migrate

__all__ = ["Home", "ScopeInfo", "Subsystem"]

_SCOPE = re.compile(r"^[a-z][a-z0-9-]{1,39}\Z")


@dataclass(frozen=True)
class Subsystem:
    """A subsystem's tables: its name (the ledger key) and its ordered migrations; optionally
    a check of its own invariants for `groundnote check` (a projection equal to its rebuild),
    and what in its tables waits for a person, counted for `status`."""

    name: str
    migrations: Sequence[Migration]
    check: Callable[[Database], list[str]] | None = None
    pending: Callable[[sqlite3.Connection], dict[str, int]] | None = None


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
    ) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.clock = clock
        self.scope_subsystems = list(scope_subsystems)
        for folder in (path, path / "scopes", path / "work" / "cache"):
            folder.mkdir(parents=True, exist_ok=True)
        self.instance = Database(path / "instance.db", busy_timeout)
        for subsystem in instance_subsystems:
            migrate(self.instance, subsystem.name, list(subsystem.migrations), clock.instant())
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
        except sqlite3.IntegrityError as exc:
            raise ValidationFailed(
                f"scope {name!r} exists already", remedy="`groundnote scope list` shows the scopes."
            ) from exc
        db = self._open_scope(name)
        with db.write() as conn:
            conn.execute("UPDATE meta SET scope = ?", (name,))
        return self.scope_info(name)

    # -- the files ---------------------------------------------------------------------------

    def scope_path(self, name: str) -> Path:
        return self.path / "scopes" / f"{name}.db"

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
                db = Database(self.scope_path(name), self.busy_timeout)
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
