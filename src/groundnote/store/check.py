"""`groundnote check`: is every store unit intact and does it match the code that reads it?"""

from __future__ import annotations

from collections.abc import Sequence

from groundnote.store import citus
from groundnote.store.database import Database
from groundnote.store.home import Home, Subsystem
from groundnote.store.migrations import MissingTwin, applied
from groundnote.store.schemas import schema_for

__all__ = ["check_file", "check_home", "placement_lines"]


def check_file(db: Database, subsystems: Sequence[Subsystem]) -> list[str]:
    """Problems of one unit: the engine's own checks, the ledgers, each subsystem's invariants."""
    problems = db.integrity_problems()
    for subsystem in subsystems:
        done = applied(db, subsystem.name)
        for migration in subsystem.migrations:
            label = f"{subsystem.name}/{migration.version:04d}_{migration.name}"
            if migration.version not in done:
                problems.append(f"migration {label} is not applied")
                continue
            try:
                expected = migration.sha256_for(db.backend)
            except MissingTwin as exc:
                problems.append(str(exc))
                continue
            if done[migration.version] != expected:
                problems.append(f"migration {label} was applied from a different file")
        if subsystem.check is not None:
            problems += [f"{subsystem.name}: {p}" for p in subsystem.check(db)]
    return problems


def check_home(home: Home, instance_subsystems: Sequence[Subsystem]) -> dict[str, list[str]]:
    """Unit name → its problems, for the instance and every scope (`instance.db`,
    `scopes/<scope>.db`; on PostgreSQL `schema groundnote`, `schema scope_<scope>`)."""
    report = {home.instance_label(): check_file(home.instance, instance_subsystems)}
    for scope in home.scope_names():
        # Opened as it is: the usual opener migrates, and would stop at a changed ledger.
        db = home.open_unmigrated(scope)
        try:
            report[home.scope_label(scope)] = check_file(db, home.scope_subsystems)
        finally:
            db.close()
    return report


def placement_lines(home: Home) -> list[str]:
    """On a Citus coordinator, the node each scope's schema lives on; else nothing."""
    if home.database_url is None:
        return []
    schemas = {home.scope_label(scope): schema_for(scope) for scope in home.scope_names()}
    return citus.placement_lines(home.database_url, schemas)
