"""Everything a project store answers, read through each subsystem's interface, for equality."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundnote.context.projectdb import ProjectDB

__all__ = ["snapshot"]


def snapshot(project_dir: Path) -> dict[str, Any]:
    store = ProjectDB.peek(project_dir)
    assert store is not None, "no store.db to read"
    try:
        return {
            "fingerprints": store.blocks.fingerprints(),
            "placements": store.blocks.placements(),
            "texts": store.blocks.texts(),
            "terms": store.terms.source(),
            "memory": store.memory.entries(),
            "voices": store.voices.profiles(),
            "committed": store.working_set.records(staged=False),
            "staged": store.working_set.records(staged=True),
            "nodes": store.graph.all_nodes(),
            "edges": store.graph.all_edges(),
        }
    finally:
        store.close()
