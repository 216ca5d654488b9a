"""The context graph's vocabulary (seed 002, core/contextgraph): labels, the scope tuple, the
id scheme and the node and edge constructors every writer calls.

An id is `<label>:<workspace>/<project>/<stream>:<local>`, each component percent-escaped so
two different tuples never render to one id. Vocabulary nodes (concept, coordinate) drop the
instance dimensions; instance nodes (block, collection, unit_state) carry them. Every node also
carries its non-empty dimensions as properties: an empty dimension is an absent key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from groundnote.context.window import Window

__all__ = [
    "EDGE_LABELS",
    "INSTANCE_LABELS",
    "NODE_LABELS",
    "VOCABULARY_LABELS",
    "Edge",
    "EdgeLabel",
    "Node",
    "NodeLabel",
    "Scope",
    "blesses",
    "block_node",
    "collection_node",
    "concept_node",
    "coordinate_node",
    "governed_by",
    "in_collection",
    "node_id",
    "unit_state_node",
    "uses_term",
]

NodeLabel = Literal["block", "collection", "unit_state", "concept", "coordinate"]
EdgeLabel = Literal["uses_term", "in_collection", "governed_by", "blesses"]
INSTANCE_LABELS: tuple[NodeLabel, ...] = ("block", "collection", "unit_state")
VOCABULARY_LABELS: tuple[NodeLabel, ...] = ("concept", "coordinate")
NODE_LABELS: tuple[NodeLabel, ...] = (*INSTANCE_LABELS, *VOCABULARY_LABELS)
EDGE_LABELS: tuple[EdgeLabel, ...] = ("uses_term", "in_collection", "governed_by", "blesses")


@dataclass(frozen=True, slots=True)
class Scope:
    """(workspace, project, stream); an empty dimension means "any" when filtering."""

    workspace: str = ""
    project: str = ""
    stream: str = ""

    def contains(self, other: Scope) -> bool:
        """The one scope predicate: every dimension this scope names must match."""
        return all(
            not mine or mine == theirs
            for mine, theirs in (
                (self.workspace, other.workspace),
                (self.project, other.project),
                (self.stream, other.stream),
            )
        )

    @property
    def vocabulary(self) -> Scope:
        """The scope a vocabulary node is qualified by: the workspace only."""
        return Scope(workspace=self.workspace)

    def properties(self) -> dict[str, str]:
        dims = {"workspace": self.workspace, "project": self.project, "stream": self.stream}
        return {k: v for k, v in dims.items() if v}


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    label: NodeLabel
    scope: Scope
    local: str  # the key inside the scope: content key, collection label, concept id, …
    props: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    label: EdgeLabel
    dst: str
    discriminator: str = ""
    window: Window = field(default_factory=Window)
    props: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.src, self.label, self.dst, self.discriminator)


def _esc(component: str) -> str:
    return quote(component, safe="")


def node_id(label: NodeLabel, scope: Scope, *local: str) -> str:
    dims = "/".join(_esc(d) for d in (scope.workspace, scope.project, scope.stream))
    return f"{label}:{dims}:{'/'.join(_esc(part) for part in local)}"


def _node(label: NodeLabel, scope: Scope, local: tuple[str, ...], props: dict[str, Any]) -> Node:
    if label in VOCABULARY_LABELS:
        scope = scope.vocabulary
    return Node(
        id=node_id(label, scope, *local),
        label=label,
        scope=scope,
        local="/".join(local),
        props={**props, **scope.properties()},
    )


def block_node(scope: Scope, content_key: str, document: str) -> Node:
    return _node("block", scope, (content_key,), {"content_key": content_key, "document": document})


def collection_node(scope: Scope, label: str, project_name: str = "") -> Node:
    props = {"collection": label}
    if project_name:
        props["project_name"] = project_name
    return _node("collection", scope, (label,), props)


def unit_state_node(
    scope: Scope, document: str, unit: str, variant: str, decision: str, staged: bool
) -> Node:
    """A unit's state is its document, unit and variant: never a reader's positional id."""
    return _node(
        "unit_state",
        scope,
        (document, unit, variant),
        {
            "document": document,
            "unit": unit,
            "variant": variant,
            "decision": decision,
            "staged": staged,
        },
    )


def concept_node(scope: Scope, concept: str) -> Node:
    return _node("concept", scope, (concept,), {"concept": concept})


def coordinate_node(scope: Scope, profile: str, channel: str) -> Node:
    return _node("coordinate", scope, (profile, channel), {"profile": profile, "channel": channel})


def uses_term(
    block: Node,
    concept: Node,
    *,
    term: str,
    status: str,
    locale: str,
    document: str,
    count: int,
    window: Window,
    market: str | None,
) -> Edge:
    """A block's use of one term entry; repeated uses fold into `count`.

    The term entry (its text, locale, market and window start) is the discriminator, so a
    block saying a deprecated word and one saying the preferred word are separate findings.
    """
    entry = "|".join((term, locale, market or "", window.valid_from or ""))
    props: dict[str, Any] = {
        "term": term,
        "status": status,
        "locale": locale,
        "document": document,
        "count": count,
    }
    if market:
        props["market"] = market
    return Edge(block.id, "uses_term", concept.id, entry, window, props)


def in_collection(block: Node, collection: Node) -> Edge:
    return Edge(block.id, "in_collection", collection.id)


def governed_by(collection: Node, coordinate: Node, window: Window) -> Edge:
    return Edge(collection.id, "governed_by", coordinate.id, window.valid_from or "", window, {})


def blesses(state: Node, block_id: str, *, target_hash: str, source_basis: str) -> Edge:
    """A unit state's blessing of the block it was decided on (the block named by its id)."""
    return Edge(
        state.id,
        "blesses",
        block_id,
        "",
        Window(),
        {"target_hash": target_hash, "source_basis": source_basis},
    )
