"""`groundnote check`: is every store file intact and does it match the code that reads it?"""

from __future__ import annotations

from collections.abc import Sequence

from groundnote.store.database import Database
from groundnote.store.home import Home, Subsystem
from groundnote.store.migrations import applied

__all__ = ["check_file", "check_home"]


def check_file(db: Database, subsystems: Sequence[Subsystem]) -> list[str]:
    """Problems of one file: SQLite's own checks, the ledgers, each subsystem's invariants."""
    problems: list[str] = []
    with db.read() as conn:
        problems += [
            f"integrity: {r[0]}" for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"
        ]
        problems += [
            f"foreign key: {r[0]} row {r[1]} points at a missing {r[2]}"
            for r in conn.execute("PRAGMA foreign_key_check")
        ]
    for subsystem in subsystems:
        done = applied(db, subsystem.name)
        for migration in subsystem.migrations:
            label = f"{subsystem.name}/{migration.version:04d}_{migration.name}"
            if migration.version not in done:
                problems.append(f"migration {label} is not applied")
            elif done[migration.version] != migration.sha256:
                problems.append(f"migration {label} was applied from a different file")
        if subsystem.check is not None:
            problems += [f"{subsystem.name}: {p}" for p in subsystem.check(db)]
    return problems


def check_home(home: Home, instance_subsystems: Sequence[Subsystem]) -> dict[str, list[str]]:
    """File name → its problems, for instance.db and every scope file."""
    report = {"instance.db": check_file(home.instance, instance_subsystems)}
    for scope in home.scope_names():
        # Opened as it is: the usual opener migrates, and would stop at a changed ledger.
        db = Database(home.scope_path(scope))
        try:
            report[f"scopes/{scope}.db"] = check_file(db, home.scope_subsystems)
        finally:
            db.close()
    return report
