"""The rollup: many projects' graphs in one store, the hosted question asked locally.

`groundnote context publish` copies a project's graph into the home's rollup store
(`<home>/context/rollup.db`), replacing that project's scope and sharing the vocabulary, so
"which projects use this concept" spans every published project. The query shapes are the
same functions over it, with the dimensions free.
"""

from __future__ import annotations

from pathlib import Path

from groundnote.context import graphstore
from groundnote.context.graphstore import GraphStore
from groundnote.context.projectdb import ProjectDB, open_database
from groundnote.context.vocabulary import Scope
from groundnote.domain.clock import Clock
from groundnote.store import migrate

__all__ = ["open_rollup", "publish", "rollup_path"]


def rollup_path(home: Path) -> Path:
    return home / "context" / "rollup.db"


def open_rollup(home: Path, clock: Clock) -> GraphStore:
    path = rollup_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = open_database(path)
    sub = graphstore.SUBSYSTEM
    migrate(db, sub.name, list(sub.migrations), clock.instant())
    return GraphStore(db)


def publish(store: ProjectDB, scope: Scope, rollup: GraphStore) -> tuple[int, int]:
    """Replace the project's scope in the rollup with its current graph; (nodes, edges)."""
    nodes = [n for n in store.graph.all_nodes() if n.scope in (scope, scope.vocabulary)]
    ids = {n.id for n in nodes}
    edges = [e for e in store.graph.all_edges() if e.src in ids]
    rollup.replace_scope(scope, nodes, edges)
    return len(nodes), len(edges)
