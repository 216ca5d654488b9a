"""The rollup: many projects' graphs in the instance store, the hosted question asked locally.

`groundnote context publish` copies a bound project's graph into the rollup tables of
`instance.db`, replacing that project's graph scope and sharing the vocabulary, so "which
projects use this concept" spans every published project. The query shapes are the same
functions over it, with the dimensions free; `bindings.published_scopes` says which of its
graph scopes a caller may read.

A project's graph is copied in parts, as `up` writes it: collections with the vocabulary,
then blocks a range of ids at a time, then unit states (each part's edges reach only nodes
written before it). Memory holds one part, and the instance's other writers wait for one
part, not for the copy. The build marker is cleared first and written last, as in `up`.
"""

from __future__ import annotations

from dataclasses import replace

from groundnote.context import graphstore
from groundnote.context.graphstore import GraphStore, Owned
from groundnote.context.materialize import BLOCKS_PER_PART
from groundnote.context.vocabulary import VOCABULARY_LABELS, Scope
from groundnote.domain.errors import NotFound
from groundnote.domain.progress import Progress
from groundnote.store import Database
from groundnote.store.home import Subsystem

__all__ = ["SUBSYSTEM", "publish", "rollup"]

# The project store's graph tables, under a ledger of their own in instance.db.
SUBSYSTEM = Subsystem(
    "context_rollup",
    [replace(m, subsystem="context_rollup") for m in graphstore.SUBSYSTEM.migrations],
)


def rollup(instance: Database) -> GraphStore:
    return GraphStore(instance)


def publish(
    project: GraphStore, scope: Scope, target: GraphStore, progress: Progress | None = None
) -> tuple[int, int]:
    """Make `target` hold the project's graph scope as `project` does; (nodes, edges)."""
    digest = project.built_from(scope)
    if digest is None:
        raise NotFound(
            "The project's graph is not built: an `up` was cut short or never ran.",
            remedy="Run `groundnote context up PATH`, then publish again.",
        )
    tick = progress or (lambda phase, done, total: None)
    vocabulary = [
        n for label in VOCABULARY_LABELS for n in project.find_nodes(label, scope.vocabulary)
    ]
    collections = project.find_nodes("collection", scope)
    states = project.find_nodes("unit_state", scope)
    first = project.edges_from([n.id for n in collections], "governed_by")
    last = project.edges_from([n.id for n in states], "blesses")
    target.forget_build(scope)
    target.replace(Owned.labelled(scope, "collection"), [*vocabulary, *collections], first)
    total = project.count_nodes(scope) - len(vocabulary) - len(collections) - len(states)
    blocks, edges = 0, len(first) + len(last)
    after: str | None = None
    while True:
        page = project.block_page(scope, after, BLOCKS_PER_PART)
        ids = [n.id for n in page]
        leaving = project.edges_from(ids, "in_collection") + project.edges_from(ids, "uses_term")
        through = page[-1].id if len(page) == BLOCKS_PER_PART else None  # the last part: open
        target.replace(Owned.blocks(scope, after, through), page, leaving)
        blocks, edges = blocks + len(page), edges + len(leaving)
        tick("publish", blocks, total)
        if through is None:
            break
        after = through
    target.replace(Owned.labelled(scope, "unit_state"), states, last)
    target.finish_build(scope, [n.id for n in vocabulary], digest)
    return len(vocabulary) + len(collections) + blocks + len(states), edges
