"""Materializing the context graph of one project (seed 002 MaterializeContextGraphInDB).

A pure projection: from the recipe, the terms store, the block cache and the working set it
builds the nodes and edges of the project's scope, and the writer replaces what the pass
owns. It runs after extraction has committed its block writes.

A full pass owns every instance node of the scope. When the vocabulary is what the graph was
last built from, a pass may own only the blocks that changed since (the block cache's change
feed) plus the small rest (collections, coordinates, concepts, unit states): the uses of an
unchanged block against an unchanged vocabulary are the same, so the result equals the full
pass, which the rebuild property test holds.

A full pass writes its blocks in parts, each a range of content keys with the block nodes'
memberships and uses, each its own write transaction, so memory holds one part and the gate's
other writers wait for one part, not for the pass. A reader meanwhile sees each part either
as it was or as it becomes, the way it already sees new blocks before the graph catches up
with them; one transaction for the whole pass would stall every other writer of the store (a
decision being staged) for as long as the pass runs.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass

from groundnote.context.blockcache import BlockCache, Placement
from groundnote.context.graphstore import GraphStore, Owned
from groundnote.context.occurrence import BlockReader, Occurrence, find, scan
from groundnote.context.recipe import Recipe
from groundnote.context.sources import StateRecord, Term, TermsSource
from groundnote.context.vocabulary import (
    VOCABULARY_LABELS,
    Edge,
    Node,
    Scope,
    blesses,
    block_node,
    collection_node,
    concept_node,
    coordinate_node,
    governed_by,
    in_collection,
    node_id,
    unit_state_node,
    uses_term,
)
from groundnote.context.window import Window
from groundnote.domain.progress import Progress

__all__ = ["GraphPass", "build_graph", "materialize", "project_scope", "source_digest"]

# Blocks per part of a full pass: one write transaction and one step of progress. Block
# ids are hashes, so a part's edges land all over the index by concept and each commit
# rewrites pages an earlier one wrote: fewer, larger parts write less, at the cost of memory
# and of the gate's other writers waiting longer.
BLOCKS_PER_PART = 10_000
# Above this many changed blocks the pass is a full one. Scanning a changed block's texts
# for every term costs about as much as a full pass spends on a hundred blocks (measured at
# 2,000 terms): past a few hundred changed blocks, only large projects gain from the scan,
# and a full pass also keeps memory to one part however much changed.
SCAN_LIMIT = 500

Hits = Callable[[Term], list[Occurrence]]


@dataclass(frozen=True, slots=True)
class Entry:
    """A term of the vocabulary, its concept's node, and its window (built once per term,
    not once per use)."""

    concept: Node
    term: Term
    window: Window


@dataclass(frozen=True)
class GraphPass:
    nodes: list[Node]
    edges: list[Edge]


def project_scope(recipe: Recipe) -> Scope:
    """The project dimension is the recipe's project name, its only identity on its own."""
    return Scope(recipe.workspace, recipe.project, recipe.stream)


def source_digest(recipe: Recipe, terms: TermsSource) -> str:
    """What the uses of a block depend on besides its own text: the vocabulary searched for."""
    data = [recipe.source_locale, terms.model_dump(mode="json", by_alias=True)]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def build_graph(
    recipe: Recipe,
    cache: BlockReader,
    terms: TermsSource,
    states: list[tuple[StateRecord, bool]],
) -> GraphPass:
    """The scope's whole graph at once, for the store-less build, which holds every block.

    `states` pairs each unit-state record with whether it is staged.
    """
    scope = project_scope(recipe)
    blocks = _blocks(scope, recipe, cache.placements())
    cache.reconcile_index()

    def hits(term: Term) -> list[Occurrence]:
        return find(cache, term.text, term.locale, recipe.source_locale)

    return _joined(
        _frame(scope, recipe, terms),
        blocks,
        GraphPass([], _uses(_entries(scope, terms), hits, _by_key(blocks))),
        _states(scope, states, cache.unit_blocks()),
    )


def materialize(
    recipe: Recipe,
    blocks: BlockCache,
    graph: GraphStore,
    terms: TermsSource,
    states: list[tuple[StateRecord, bool]],
    progress: Progress,
) -> None:
    """Bring the scope's graph in the project store up to the blocks, terms and states.

    Reports the phases "index" (texts indexed; a full pass only), "terms" (concepts
    searched) and "blocks" (blocks written, of all or of the changed ones).
    """
    scope = project_scope(recipe)
    digest = source_digest(recipe, terms)
    others = [s for s in graph.scopes() if s != scope]
    for other in others:  # a renamed project re-keys its whole projection
        graph.drop_scope(other)
    if others or graph.built_from(scope) != digest or blocks.change_count() > SCAN_LIMIT:
        _full_pass(recipe, blocks, graph, terms, states, progress)
        graph.finish_build(scope, _declared(scope, recipe, terms), digest)
    else:
        _feed_pass(recipe, blocks, graph, terms, states, progress, digest)


def _full_pass(
    recipe: Recipe,
    blocks: BlockCache,
    graph: GraphStore,
    terms: TermsSource,
    states: list[tuple[StateRecord, bool]],
    progress: Progress,
) -> None:
    scope = project_scope(recipe)
    # Forgotten first: a pass cut short leaves the scope unbuilt, and the next pass, full,
    # looks at every block, so the feed has nothing left to tell it.
    graph.forget_build(scope)
    blocks.drain_changes()
    frame = _frame(scope, recipe, terms)
    graph.replace(Owned.labelled(scope, "collection"), frame.nodes, frame.edges)
    blocks.reconcile_index(progress)
    entries = _entries(scope, terms)

    def hits(term: Term) -> list[Occurrence]:
        return find(blocks, term.text, term.locale, recipe.source_locale)

    with closing(_HitLog()) as log:
        _search(entries, hits, log, progress)
        _write_blocks(recipe, blocks, graph, entries, log, progress)
    unit_states = _states(scope, states, blocks.unit_blocks(_units(states)))
    graph.replace(Owned.labelled(scope, "unit_state"), unit_states.nodes, unit_states.edges)


class _HitLog:
    """Where each term occurs, kept on disk between the search, which goes term by term,
    and the writing, which goes block by block (the order the graph's tables are keyed in).

    A private temporary database: SQLite deletes it when the connection closes.
    """

    def __init__(self) -> None:
        self._conn = sqlite3.connect("", isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = OFF")
        self._conn.execute("PRAGMA synchronous = OFF")
        self._conn.execute("CREATE TABLE hits (content_key TEXT, entry INTEGER, count INTEGER)")

    def add(self, entry: int, hits: Iterable[Occurrence]) -> None:
        self._conn.executemany(
            "INSERT INTO hits VALUES (?, ?, ?)",
            [(hit.content_key, entry, len(hit.positions)) for hit in hits],
        )

    def done(self) -> None:
        """The search is over: index the hits by block for `between`."""
        self._conn.execute("CREATE INDEX hits_block ON hits (content_key, entry, count)")

    def between(self, after: str, through: str | None) -> Iterator[tuple[str, int, int]]:
        """(content key, entry, count) of the blocks in (`after`, `through`], in entry order
        per block."""
        high = "AND content_key <= ? " if through is not None else ""
        args = (after, through) if through is not None else (after,)
        yield from self._conn.execute(
            f"SELECT content_key, entry, count FROM hits WHERE content_key > ? {high}"
            "ORDER BY content_key, entry",
            args,
        )

    def close(self) -> None:
        self._conn.close()


def _search(entries: list[Entry], hits: Hits, log: _HitLog, progress: Progress) -> None:
    """Every term through the index, into the log; progress per percent of the concepts."""
    concepts = list(dict.fromkeys(entry.concept.id for entry in entries))
    step = max(1, len(concepts) // 100)
    done = 0
    progress("terms", done, len(concepts))
    for index, entry in enumerate(entries):
        log.add(index, hits(entry.term))
        if index + 1 == len(entries) or entries[index + 1].concept.id != entry.concept.id:
            done += 1
            if done % step == 0 or done == len(concepts):
                progress("terms", done, len(concepts))
    log.done()


def _write_blocks(
    recipe: Recipe,
    blocks: BlockCache,
    graph: GraphStore,
    entries: list[Entry],
    log: _HitLog,
    progress: Progress,
) -> None:
    """Block nodes with their memberships and uses, a range of content keys per part; the
    last range is open above, so the parts cover every block node the scope may hold."""
    scope = project_scope(recipe)
    total = blocks.block_count()
    done, after = 0, ""
    progress("blocks", done, total)
    while True:
        keys = blocks.content_keys(after, BLOCKS_PER_PART)
        last = len(keys) < BLOCKS_PER_PART
        through = None if last else keys[-1]
        part = _blocks(scope, recipe, blocks.placements_between(after, through))
        nodes = _by_key(part)
        uses = [
            _use(nodes[key], entries[entry], count)
            for key, entry, count in log.between(after, through)
            if key in nodes
        ]
        owned = Owned.blocks(scope, _block_id(scope, after), _block_id(scope, through))
        graph.replace(owned, part.nodes, part.edges + uses)
        done += len(keys)
        progress("blocks", done, done if last else max(done, total))
        if last:
            return
        after = keys[-1]


def _block_id(scope: Scope, key: str | None) -> str | None:
    return node_id("block", scope, key) if key else None


def _feed_pass(
    recipe: Recipe,
    blocks: BlockCache,
    graph: GraphStore,
    terms: TermsSource,
    states: list[tuple[StateRecord, bool]],
    progress: Progress,
    digest: str,
) -> None:
    """Only the changed blocks (few: see SCAN_LIMIT) and the small rest, in one write."""
    scope = project_scope(recipe)
    feed = blocks.changes()
    changed = _blocks(scope, recipe, blocks.placements(feed))
    texts = blocks.texts(_by_key(changed))

    def hits(term: Term) -> list[Occurrence]:
        return scan(texts, term.text, term.locale, recipe.source_locale)

    progress("terms", 0, len(terms.concepts))
    uses = _uses(_entries(scope, terms), hits, _by_key(changed))
    progress("terms", len(terms.concepts), len(terms.concepts))
    built = _joined(
        _frame(scope, recipe, terms),
        changed,
        GraphPass([], uses),
        _states(scope, states, blocks.unit_blocks(_units(states))),
    )
    owned = {node_id("block", scope, k) for k in feed}
    graph.replace_scope(scope, built.nodes, built.edges, blocks=owned, source_digest=digest)
    blocks.drain_changes(feed)
    progress("blocks", len(feed), len(feed))


# -- the projection, piece by piece -------------------------------------------------------------


def _frame(scope: Scope, recipe: Recipe, terms: TermsSource) -> GraphPass:
    """Collections, the coordinates governing them with their `governed_by` edges, and the
    concepts."""
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    for collection in recipe.collections:
        node = collection_node(scope, collection.label)
        nodes[node.id] = node
        for rule in collection.governance:
            coordinate = coordinate_node(scope, rule.profile, rule.channel)
            nodes[coordinate.id] = coordinate
            edges.append(governed_by(node, coordinate, rule.window))
    for concept in terms.concepts:
        node = concept_node(scope, concept.id)
        nodes[node.id] = node
    return GraphPass(list(nodes.values()), edges)


def _blocks(scope: Scope, recipe: Recipe, places: Iterable[Placement]) -> GraphPass:
    """Block nodes and `in_collection` edges. `places` must hold every placement of their
    blocks in path order: a block's document is its first path."""
    collections = {c.label: collection_node(scope, c.label) for c in recipe.collections}
    blocks: dict[str, Node] = {}
    memberships: set[tuple[str, str]] = set()
    for place in places:
        if place.content_key not in blocks:
            blocks[place.content_key] = block_node(scope, place.content_key, place.path)
        for label in place.collections:
            memberships.add((place.content_key, label))
    edges = [in_collection(blocks[k], collections[label]) for k, label in sorted(memberships)]
    return GraphPass(list(blocks.values()), edges)


def _entries(scope: Scope, terms: TermsSource) -> list[Entry]:
    """Every term with its concept's node, in the terms source's order."""
    nodes = [concept_node(scope, c.id) for c in terms.concepts]
    return [
        Entry(node, term, term.window)
        for node, c in zip(nodes, terms.concepts, strict=True)
        for term in c.terms
    ]


def _uses(entries: list[Entry], hits: Hits, blocks: Mapping[str, Node]) -> list[Edge]:
    """A `uses_term` edge per block of `blocks` where `hits` finds a term."""
    return [
        _use(blocks[hit.content_key], entry, len(hit.positions))
        for entry in entries
        for hit in hits(entry.term)
        if hit.content_key in blocks
    ]


def _use(block: Node, entry: Entry, count: int) -> Edge:
    term = entry.term
    return uses_term(
        block,
        entry.concept,
        term=term.text,
        status=term.status,
        locale=term.locale,
        document=str(block.props["document"]),
        count=count,
        window=entry.window,
        market=term.market,
    )


def _states(
    scope: Scope,
    states: list[tuple[StateRecord, bool]],
    unit_blocks: Mapping[tuple[str, str], str],
) -> GraphPass:
    """Unit-state nodes and the `blesses` edge to each one's block.

    The working set names a document by its durable key; blocks are filed by path, and
    `unit_blocks` maps (document key, unit) to the block's content key.
    """
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    for record, staged in states:
        state = unit_state_node(
            scope, record.document, record.unit, record.variant, record.decision, staged
        )
        nodes[state.id] = state
        key = unit_blocks.get((record.document, record.unit))
        if key is not None:  # a record whose block is gone keeps its node, not its edge
            target = node_id("block", scope, key)
            edges.append(
                blesses(
                    state,
                    target,
                    target_hash=record.target_hash,
                    source_basis=record.source_basis,
                )
            )
    return GraphPass(list(nodes.values()), edges)


def _joined(*parts: GraphPass) -> GraphPass:
    return GraphPass([n for p in parts for n in p.nodes], [e for p in parts for e in p.edges])


def _by_key(blocks: GraphPass) -> dict[str, Node]:
    """The block nodes of a pass by content key (a block node's local key)."""
    return {node.local: node for node in blocks.nodes}


def _units(states: list[tuple[StateRecord, bool]]) -> set[tuple[str, str]]:
    return {(record.document, record.unit) for record, _ in states}


def _declared(scope: Scope, recipe: Recipe, terms: TermsSource) -> list[str]:
    """The vocabulary node ids a full pass declares: its coordinates and its concepts."""
    frame = _frame(scope, recipe, terms)
    return [node.id for node in frame.nodes if node.label in VOCABULARY_LABELS]
