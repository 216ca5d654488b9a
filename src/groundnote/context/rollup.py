"""The rollup: many projects' graphs in the instance store, the hosted question asked locally.

`groundnote context publish` copies a bound project's graph into the rollup tables of
`instance.db`, replacing that project's graph scope and sharing the vocabulary, so "which
projects use this concept" spans every published project. The query shapes are the same
functions over it, with the dimensions free; `bindings.published_scopes` says which of its
graph scopes a caller may read.
"""

from __future__ import annotations

from dataclasses import replace

from groundnote.context import graphstore
from groundnote.context.graphstore import GraphStore
from groundnote.context.projectdb import ProjectDB
from groundnote.context.vocabulary import Edge, Node, Scope
from groundnote.store import Database
from groundnote.store.home import Subsystem

__all__ = ["SUBSYSTEM", "project_graph", "rollup"]

# The project store's graph tables, under a ledger of their own in instance.db.
SUBSYSTEM = Subsystem(
    "context_rollup",
    [replace(m, subsystem="context_rollup") for m in graphstore.SUBSYSTEM.migrations],
)


def rollup(instance: Database) -> GraphStore:
    return GraphStore(instance)


def project_graph(store: ProjectDB, scope: Scope) -> tuple[list[Node], list[Edge]]:
    """The nodes and edges `publish` copies: the project's own and the vocabulary they use."""
    nodes = [n for n in store.graph.all_nodes() if n.scope in (scope, scope.vocabulary)]
    ids = {n.id for n in nodes}
    edges = [e for e in store.graph.all_edges() if e.src in ids]
    return nodes, edges
