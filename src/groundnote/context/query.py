"""The query shapes, written once against two narrow read protocols (seed 002).

Every store that holds the vocabulary (the project store, the in-memory store, a rollup over
many projects) satisfies `EdgeReader` and `NodeFinder`; these functions are the only
implementation of the questions. A local project asks with its dimensions pinned, a rollup
with them free: `Scope.contains` is the one predicate, an empty dimension meaning any.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from groundnote.context.vocabulary import (
    Edge,
    EdgeLabel,
    Node,
    NodeLabel,
    Scope,
    concept_node,
    coordinate_node,
)

__all__ = [
    "Blessing",
    "EdgeReader",
    "GraphReader",
    "NodeFinder",
    "ProjectUsage",
    "TermUsage",
    "Use",
    "blessings_of_block",
    "blocks_with_content_key",
    "collections_at_coordinate",
    "projects_using_concept",
    "standing",
    "uses",
    "uses_by_project",
]


class EdgeReader(Protocol):
    """One hop: the edges of one label leaving (or reaching) any of the given nodes."""

    def edges_from(self, srcs: Collection[str], label: EdgeLabel) -> list[Edge]: ...
    def edges_to(self, dsts: Collection[str], label: EdgeLabel) -> list[Edge]: ...


class NodeFinder(Protocol):
    def nodes(self, ids: Collection[str]) -> dict[str, Node]: ...
    def find_nodes(
        self, label: NodeLabel, scope: Scope, local: str | None = None
    ) -> list[Node]: ...


class GraphReader(EdgeReader, NodeFinder, Protocol):
    """What a store must answer to serve every query shape."""


@dataclass(frozen=True)
class Use:
    """One term used in one block, with the collections the block belongs to."""

    block: str
    content_key: str
    project: str
    stream: str
    collections: tuple[str, ...]
    term: str
    locale: str
    document: str
    count: int


@dataclass(frozen=True)
class TermUsage:
    term: str
    locale: str
    blocks: int
    count: int
    status: str  # the standing at the asked point; "unlisted" when no entry applies there


@dataclass(frozen=True)
class ProjectUsage:
    project: str
    stream: str
    count: int
    terms: tuple[TermUsage, ...]


@dataclass(frozen=True)
class Blessing:
    unit_state: str
    document: str
    unit: str
    variant: str
    decision: str
    target_hash: str
    source_basis: str


def _concept_id(concept: str, scope: Scope) -> str:
    return concept_node(scope, concept).id


def _term_edges(graph: GraphReader, concept: str, scope: Scope) -> list[tuple[Node, Edge]]:
    """(block, uses_term edge) for every use of the concept inside the scope."""
    edges = graph.edges_to([_concept_id(concept, scope)], "uses_term")
    blocks = graph.nodes({e.src for e in edges})
    return [
        (blocks[e.src], e) for e in edges if e.src in blocks and scope.contains(blocks[e.src].scope)
    ]


def _folded(
    graph: GraphReader, concept: str, scope: Scope
) -> dict[tuple[str, str, str], tuple[Node, list[Edge]]]:
    """Per (block, term, locale): one word has one count, however many entries it has."""
    grouped: dict[tuple[str, str, str], tuple[Node, list[Edge]]] = {}
    for block, edge in _term_edges(graph, concept, scope):
        key = (block.id, edge.props["term"], edge.props["locale"])
        grouped.setdefault(key, (block, []))[1].append(edge)
    return grouped


def uses(graph: GraphReader, concept: str, scope: Scope) -> list[Use]:
    """Term → blocks → collection, by traversal."""
    folded = _folded(graph, concept, scope)
    memberships = graph.edges_from({block.id for block, _ in folded.values()}, "in_collection")
    collections = graph.nodes({e.dst for e in memberships})
    labels: dict[str, list[str]] = {}
    for edge in memberships:
        if edge.dst in collections:
            labels.setdefault(edge.src, []).append(collections[edge.dst].local)
    return [
        Use(
            block=block.id,
            content_key=block.local,
            project=block.scope.project,
            stream=block.scope.stream,
            collections=tuple(sorted(labels.get(block.id, []))),
            term=term,
            locale=locale,
            document=str(edges[0].props["document"]),
            count=int(edges[0].props["count"]),
        )
        for (_, term, locale), (block, edges) in sorted(folded.items())
    ]


def projects_using_concept(graph: GraphReader, concept: str, scope: Scope) -> list[str]:
    """Which projects use this concept: two hops through the shared vocabulary node."""
    return sorted({block.scope.project for block, _ in _term_edges(graph, concept, scope)})


def standing(edges: list[Edge], at: str, market: str | None) -> str:
    """How a word stands at an instant in a market: the entry in force there decides.

    An entry for the asked market outranks one for every market; outside every entry's window
    (or outside the market a market-bound entry reaches) the word is "unlisted".
    """
    applicable = [
        e for e in edges if e.window.contains(at) and (e.props.get("market") in (None, market))
    ]
    if not applicable:
        return "unlisted"
    best = max(
        applicable, key=lambda e: (e.props.get("market") is not None, e.window.valid_from or "")
    )
    return str(best.props["status"])


def uses_by_project(
    graph: GraphReader, concept: str, scope: Scope, *, at: str, market: str | None = None
) -> list[ProjectUsage]:
    """How much of the concept sits in each project, in which words, and how it stands there."""
    per_project: dict[tuple[str, str], dict[tuple[str, str], list[tuple[str, list[Edge]]]]] = {}
    for (block_id, term, locale), (block, edges) in _folded(graph, concept, scope).items():
        key = (block.scope.project, block.scope.stream)
        per_project.setdefault(key, {}).setdefault((term, locale), []).append((block_id, edges))
    out = []
    for (project, stream), words in sorted(per_project.items()):
        terms = tuple(
            TermUsage(
                term=term,
                locale=locale,
                blocks=len(found),
                count=sum(int(edges[0].props["count"]) for _, edges in found),
                status=standing(found[0][1], at, market),
            )
            for (term, locale), found in sorted(words.items())
        )
        out.append(ProjectUsage(project, stream, sum(t.count for t in terms), terms))
    return out


def collections_at_coordinate(
    graph: GraphReader, profile: str, channel: str, scope: Scope, *, at: str
) -> list[Node]:
    """What is governed at this point, at this instant: the governed_by windows decide."""
    coordinate = coordinate_node(scope, profile, channel)
    edges = [e for e in graph.edges_to([coordinate.id], "governed_by") if e.window.contains(at)]
    found = graph.nodes({e.src for e in edges})
    return [found[k] for k in sorted(found) if scope.contains(found[k].scope)]


def blessings_of_block(graph: GraphReader, content_key: str, scope: Scope) -> list[Blessing]:
    """Which decisions cover the units holding this wording, at which basis."""
    out = []
    blocks = graph.find_nodes("block", scope, content_key)
    edges = graph.edges_to([b.id for b in blocks], "blesses")
    states = graph.nodes({e.src for e in edges})
    for edge in edges:
        state = states.get(edge.src)
        if state is not None:
            out.append(
                Blessing(
                    unit_state=state.id,
                    document=str(state.props["document"]),
                    unit=str(state.props["unit"]),
                    variant=str(state.props["variant"]),
                    decision=str(state.props["decision"]),
                    target_hash=str(edge.props["target_hash"]),
                    source_basis=str(edge.props["source_basis"]),
                )
            )
    return sorted(out, key=lambda b: b.unit_state)


def blocks_with_content_key(graph: GraphReader, content_key: str, scope: Scope) -> list[Node]:
    """Who else holds this same wording: one block node per project and stream."""
    return graph.find_nodes("block", scope, content_key)
