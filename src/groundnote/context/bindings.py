"""Content projects bound to scopes, in the instance store.

An agent never names a directory: it names a scope and, when the scope holds several, a
project. `groundnote context bind PATH --scope S` binds a project's directory once; the
rollup's published graph scopes are recorded against the binding that published them, which
is how a rollup read is limited to the scopes the caller may read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from groundnote.context.vocabulary import Scope
from groundnote.domain.errors import Conflict, NotFound
from groundnote.store import Database
from groundnote.store.home import Subsystem
from groundnote.store.migrations import load_migrations
from groundnote.store.sql import Row

__all__ = [
    "SUBSYSTEM",
    "Binding",
    "bind",
    "binding_at",
    "bindings",
    "published_scopes",
    "record_published",
    "unbind",
]

SUBSYSTEM = Subsystem("context", load_migrations("groundnote.context", "context"))


@dataclass(frozen=True)
class Binding:
    scope: str
    project: str
    path: Path


def _binding(row: Row) -> Binding:
    return Binding(row["scope"], row["project"], Path(row["path"]))


def bind(db: Database, scope: str, project: str, folder: Path, *, at: str, by: str) -> Binding:
    """Bind `folder` to `scope` under the name `project`; binding it again the same way is a
    no-op, binding it elsewhere is refused with the binding that holds it."""
    wanted = Binding(scope, project, folder)
    with db.write() as conn:
        held = conn.execute(
            "SELECT * FROM context_project WHERE path = ? OR (scope = ? AND project = ?)",
            (str(folder), scope, project),
        ).fetchall()
        for row in held:
            found = _binding(row)
            if found == wanted:
                return found
            raise Conflict(
                f"{found.path} is bound to scope {found.scope!r} as project {found.project!r}.",
                remedy=(
                    f"Unbind it first (`groundnote context unbind {found.project} --scope "
                    f"{found.scope}`), or bind this directory under another project name."
                ),
            )
        conn.execute(
            "INSERT INTO context_project (scope, project, path, bound_at, bound_by) "
            "VALUES (?,?,?,?,?)",
            (scope, project, str(folder), at, by),
        )
    return wanted


def unbind(db: Database, scope: str, project: str) -> tuple[Binding, list[Scope]]:
    """Remove a binding; returns it and the graph scopes it had published (now unowned)."""
    with db.write() as conn:
        row = conn.execute(
            "SELECT * FROM context_project WHERE scope = ? AND project = ?", (scope, project)
        ).fetchone()
        if row is None:
            raise NotFound(
                f"Scope {scope!r} has no content project {project!r}.",
                remedy="List the bound projects with `groundnote context projects`.",
            )
        published = [
            Scope(r["workspace"], r["project"], r["stream"])
            for r in conn.execute(
                "SELECT workspace, project, stream FROM context_published "
                "WHERE scope = ? AND binding = ?",
                (scope, project),
            )
        ]
        conn.execute(
            "DELETE FROM context_project WHERE scope = ? AND project = ?", (scope, project)
        )
    return _binding(row), published


def bindings(db: Database, scopes: list[str]) -> list[Binding]:
    """The projects bound to any of `scopes`, by scope and project."""
    marks = ",".join("?" * len(scopes))
    with db.read() as conn:
        rows = conn.execute(
            f"SELECT * FROM context_project WHERE scope IN ({marks}) ORDER BY scope, project",
            scopes,
        ).fetchall()
    return [_binding(r) for r in rows]


def binding_at(db: Database, folder: Path) -> Binding | None:
    with db.read() as conn:
        row = conn.execute(
            "SELECT * FROM context_project WHERE path = ?", (str(folder),)
        ).fetchone()
    return _binding(row) if row is not None else None


def record_published(db: Database, scope: Scope, binding: Binding, *, at: str) -> None:
    """Say which binding published `scope`, refusing one another binding published first."""
    with db.write() as conn:
        row = conn.execute(
            "SELECT scope, binding FROM context_published "
            "WHERE workspace = ? AND project = ? AND stream = ?",
            (scope.workspace, scope.project, scope.stream),
        ).fetchone()
        if row is not None and (row["scope"], row["binding"]) != (binding.scope, binding.project):
            raise Conflict(
                f"The graph scope {scope.workspace}/{scope.project}/{scope.stream} was published "
                f"by project {row['binding']!r} of scope {row['scope']!r}.",
                remedy="Give this project another workspace, project or stream in its recipe.",
            )
        conn.execute(
            "INSERT INTO context_published (workspace, project, stream, scope, binding, "
            "published_at) VALUES (?,?,?,?,?,?) ON CONFLICT (workspace, project, stream) "
            "DO UPDATE SET scope = excluded.scope, binding = excluded.binding, "
            "published_at = excluded.published_at",
            (
                scope.workspace,
                scope.project,
                scope.stream,
                binding.scope,
                binding.project,
                at,
            ),
        )


def published_scopes(db: Database, scopes: list[str]) -> list[Scope]:
    """The graph scopes published by projects of `scopes`: what a reader of those may see."""
    marks = ",".join("?" * len(scopes))
    with db.read() as conn:
        rows = conn.execute(
            "SELECT workspace, project, stream FROM context_published "
            f"WHERE scope IN ({marks}) ORDER BY workspace, project, stream",
            scopes,
        ).fetchall()
    return [Scope(r["workspace"], r["project"], r["stream"]) for r in rows]
