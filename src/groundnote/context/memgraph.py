"""The in-memory graph: the seed's browser build, with no SQLite at all.

It holds the same vocabulary and answers the same query shapes as the project store, and
persists to a JSON sidecar (`.groundnote/work/store.json`) that the same sources rebuild.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from groundnote.context.vocabulary import (
    INSTANCE_LABELS,
    VOCABULARY_LABELS,
    Edge,
    EdgeLabel,
    Node,
    NodeLabel,
    Scope,
)
from groundnote.context.window import Window

__all__ = ["MemoryGraph"]


class MemoryGraph:
    def __init__(self) -> None:
        self._nodes: dict[str, Node] = {}
        self._edges: dict[tuple[str, str, str, str], Edge] = {}

    def replace_scope(
        self,
        scope: Scope,
        nodes: Iterable[Node],
        edges: Iterable[Edge],
        *,
        blocks: Collection[str] | None = None,
        source_digest: str | None = None,
    ) -> None:
        """The same entitlement as the SQLite writer: own instance nodes, shared vocabulary.

        `source_digest` is accepted for the writer's signature and not kept: the store-less
        build derives its graph whole on every run.
        """
        nodes = list(nodes)
        owned_blocks = None if blocks is None else set(blocks)
        owned = {
            n.id
            for n in self._nodes.values()
            if n.label in INSTANCE_LABELS
            and n.scope == scope
            and (owned_blocks is None or n.label != "block" or n.id in owned_blocks)
        }
        removed = owned - {n.id for n in nodes}
        for node_id in removed:
            del self._nodes[node_id]
        self._edges = {
            k: e for k, e in self._edges.items() if e.src not in owned and e.dst not in removed
        }
        for node in nodes:
            self._nodes[node.id] = node
        for edge in edges:
            self._edges[edge.key] = edge
        declared = {n.id for n in nodes if n.label in VOCABULARY_LABELS}
        used = {e.dst for e in self._edges.values()}
        for node in list(self._nodes.values()):
            if (
                node.label in VOCABULARY_LABELS
                and node.scope.workspace == scope.workspace
                and node.id not in declared
                and node.id not in used
            ):
                del self._nodes[node.id]

    def nodes(self, ids: Collection[str]) -> dict[str, Node]:
        return {i: self._nodes[i] for i in ids if i in self._nodes}

    def find_nodes(self, label: NodeLabel, scope: Scope, local: str | None = None) -> list[Node]:
        return sorted(
            (
                n
                for n in self._nodes.values()
                if n.label == label
                and scope.contains(n.scope)
                and (local is None or n.local == local)
            ),
            key=lambda n: n.id,
        )

    def edges_from(self, srcs: Collection[str], label: EdgeLabel) -> list[Edge]:
        wanted = set(srcs)
        return self._sorted(e for e in self._edges.values() if e.src in wanted and e.label == label)

    def edges_to(self, dsts: Collection[str], label: EdgeLabel) -> list[Edge]:
        wanted = set(dsts)
        return self._sorted(e for e in self._edges.values() if e.dst in wanted and e.label == label)

    @staticmethod
    def _sorted(edges: Iterable[Edge]) -> list[Edge]:
        return sorted(edges, key=lambda e: (e.src, e.dst, e.discriminator))

    def all_nodes(self) -> list[Node]:
        return sorted(self._nodes.values(), key=lambda n: n.id)

    def all_edges(self) -> list[Edge]:
        return sorted(self._edges.values(), key=lambda e: e.key)

    # -- the JSON sidecar ----------------------------------------------------------------------

    def save(self, file: Path, extra: dict[str, Any] | None = None) -> None:
        """Write the sidecar atomically; `extra` rides along (the staged working set)."""
        data: dict[str, Any] = {
            **(extra or {}),
            "nodes": [
                {
                    "id": n.id,
                    "label": n.label,
                    "scope": [n.scope.workspace, n.scope.project, n.scope.stream],
                    "local": n.local,
                    "props": n.props,
                }
                for n in self.all_nodes()
            ],
            "edges": [
                {
                    "src": e.src,
                    "label": e.label,
                    "dst": e.dst,
                    "discriminator": e.discriminator,
                    "window": [e.window.valid_from, e.window.valid_to],
                    "props": e.props,
                }
                for e in self.all_edges()
            ],
        }
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True, indent=1), "utf-8")
        tmp.replace(file)

    @classmethod
    def load(cls, file: Path) -> MemoryGraph:
        graph = cls()
        if not file.exists():
            return graph
        data: dict[str, Any] = json.loads(file.read_text("utf-8"))
        for n in data["nodes"]:
            node = Node(n["id"], n["label"], Scope(*n["scope"]), n["local"], n["props"])
            graph._nodes[node.id] = node
        for e in data["edges"]:
            window = Window(valid_from=e["window"][0], valid_to=e["window"][1])
            edge = Edge(e["src"], e["label"], e["dst"], e["discriminator"], window, e["props"])
            graph._edges[edge.key] = edge
        return graph
