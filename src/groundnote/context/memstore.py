"""The store-less build (seed 002 "Browser and wasm"): no SQLite, the same sources, the same
graph relations.

Blocks live in a path-keyed in-memory store and terms stay the parsed source; the graph is a
`MemoryGraph`; the working set's staged decisions and the graph persist to the JSON sidecar
`.groundnote/work/store.json`. Occurrences are found by scanning, which needs no index.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from groundnote.context.blockcache import BlockText, Placement
from groundnote.context.blocks import Document, parse_document
from groundnote.context.converge import read_sources
from groundnote.context.locales import SOURCE
from groundnote.context.materialize import build_graph, project_scope
from groundnote.context.memgraph import MemoryGraph
from groundnote.context.projectdb import sidecar_path
from groundnote.context.sources import StateRecord

__all__ = ["MemoryBlocks", "MemoryProject", "up_in_memory"]


class MemoryBlocks:
    """Documents by path; answers the block cache's reads the way the SQLite one does."""

    def __init__(self, documents: list[Document]) -> None:
        self._documents = sorted(documents, key=lambda d: d.path)
        self._texts: dict[str, dict[str, str]] = {}
        for doc in self._documents:  # path order: the first path's translation wins
            for block in doc.blocks:
                texts = self._texts.setdefault(block.content_key, {SOURCE: block.text})
                for locale, text in block.targets:
                    texts.setdefault(locale, text)

    def placements(self, keys: Collection[str] | None = None) -> list[Placement]:
        wanted = None if keys is None else set(keys)
        return [
            Placement(doc.path, doc.key, b.unit, i, b.content_key, tuple(sorted(doc.collections)))
            for doc in self._documents
            for i, b in enumerate(doc.blocks)
            if wanted is None or b.content_key in wanted
        ]

    def texts(self, keys: Collection[str] | None = None) -> list[BlockText]:
        chosen = sorted(self._texts) if keys is None else sorted(set(keys) & set(self._texts))
        return [
            BlockText(key, locale, text)
            for key in chosen
            for locale, text in sorted(self._texts[key].items())
        ]

    def unit_blocks(self) -> dict[tuple[str, str], str]:
        return {(d.key, b.unit): b.content_key for d in self._documents for b in d.blocks}

    def reconcile_index(self) -> int:
        return 0  # there is no index: every search scans

    def candidates(self, needle: str, locale: str) -> list[BlockText]:
        return [t for t in self.texts() if t.locale == locale]


@dataclass
class MemoryProject:
    graph: MemoryGraph
    staged: dict[tuple[str, str, str], StateRecord] = field(default_factory=dict)

    def stage(self, record: StateRecord) -> None:
        self.staged[record.key] = record

    def save(self, file: Path) -> None:
        """Graph and staged state into the sidecar: the staged state's only copy here."""
        staged = [r.model_dump(mode="json") for _, r in sorted(self.staged.items())]
        self.graph.save(file, {"staged": staged})


def up_in_memory(project_dir: Path) -> MemoryProject:
    """Build the project's graph from its sources without SQLite, keeping staged state from
    the sidecar, and write the sidecar back."""
    file = sidecar_path(project_dir)
    staged: dict[tuple[str, str, str], StateRecord] = {}
    if file.exists():
        for raw in json.loads(file.read_text("utf-8")).get("staged", []):
            record = StateRecord.model_validate(raw)
            staged[record.key] = record
    sources = read_sources(project_dir)
    blocks = MemoryBlocks(
        [parse_document(project_dir, p, c) for p, c in sorted(sources.documents.items())]
    )
    states = [(r, False) for r in sources.state if r.key not in staged]
    states += [(r, True) for _, r in sorted(staged.items())]
    built = build_graph(sources.recipe, blocks, sources.terms, states)
    graph = MemoryGraph()
    graph.replace_scope(project_scope(sources.recipe), built.nodes, built.edges)
    project = MemoryProject(graph, staged)
    project.save(file)
    return project
