"""Materializing the context graph of one project (seed 002 MaterializeContextGraphInDB).

A pure projection: from the recipe, the terms store, the block cache and the working set it
builds the nodes and edges of the project's scope, and the writer replaces what the pass
owns. It runs after extraction has committed its block-write transaction.

A full pass owns every instance node of the scope. When the vocabulary is what the graph was
last built from, a pass may own only the blocks that changed since (the block cache's change
feed) plus the small rest (collections, coordinates, concepts, unit states): the uses of an
unchanged block against an unchanged vocabulary are the same, so the result equals the full
pass, which the rebuild property test holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass

from groundnote.context.occurrence import BlockReader, Occurrence, find, scan
from groundnote.context.recipe import Recipe
from groundnote.context.sources import StateRecord, TermsSource
from groundnote.context.vocabulary import (
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

__all__ = ["GraphPass", "build_graph", "project_scope", "source_digest"]


@dataclass(frozen=True)
class GraphPass:
    nodes: list[Node]
    edges: list[Edge]
    blocks: set[str] | None  # the block node ids the pass owns; None: all of the scope's


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
    changed: Collection[str] | None = None,
) -> GraphPass:
    """The scope's nodes and edges; with `changed` (content keys), only those blocks'.

    `states` pairs each unit-state record with whether it is staged.
    """
    scope = project_scope(recipe)
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []

    collections: dict[str, Node] = {}
    for collection in recipe.collections:
        node = collection_node(scope, collection.label)
        collections[collection.label] = nodes[node.id] = node
        for rule in collection.governance:
            coordinate = coordinate_node(scope, rule.profile, rule.channel)
            nodes[coordinate.id] = coordinate
            edges.append(governed_by(node, coordinate, rule.window))

    blocks: dict[str, Node] = {}
    memberships: set[tuple[str, str]] = set()
    for place in cache.placements(changed):  # path order: a block's document is its first path
        block = blocks.get(place.content_key)
        if block is None:
            block = block_node(scope, place.content_key, place.path)
            blocks[place.content_key] = nodes[block.id] = block
        for label in place.collections:
            memberships.add((block.id, collections[label].id))
    edges.extend(in_collection(nodes[b], nodes[c]) for b, c in sorted(memberships))

    texts = cache.texts(blocks) if changed is not None else []
    if changed is None and blocks:
        cache.reconcile_index()
    for concept in terms.concepts:
        cnode = concept_node(scope, concept.id)
        nodes[cnode.id] = cnode
        for term in concept.terms:
            hits: list[Occurrence]
            if changed is None:
                hits = find(cache, term.text, term.locale, recipe.source_locale)
            else:
                hits = scan(texts, term.text, term.locale, recipe.source_locale)
            window = term.window
            for hit in hits:
                block = blocks.get(hit.content_key)
                if block is None:
                    continue
                edges.append(
                    uses_term(
                        block,
                        cnode,
                        term=term.text,
                        status=term.status,
                        locale=term.locale,
                        document=str(block.props["document"]),
                        count=len(hit.positions),
                        window=window,
                        market=term.market,
                    )
                )

    # The working set names a document by its durable key; blocks are filed by path, and
    # the block cache maps one to the other.
    unit_blocks = cache.unit_blocks()
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
    owned = None if changed is None else {node_id("block", scope, k) for k in changed}
    return GraphPass(list(nodes.values()), edges, owned)
