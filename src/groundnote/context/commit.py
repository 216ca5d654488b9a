"""Staging a unit decision and `groundnote context commit`: staged state into its shards.

A staged decision lives only in store.db until it is committed; committing writes it to
`state/<document>.jsonl` (one shard per document), after which a rebuild recovers it.
"""

from __future__ import annotations

import json
from pathlib import Path

from groundnote.context.projectdb import ProjectDB
from groundnote.context.sources import STATE_DIR, StateRecord, load_state, shard_name

__all__ = ["commit", "shard_line"]


def shard_line(record: StateRecord) -> str:
    return json.dumps(record.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def commit(project_dir: Path, store: ProjectDB) -> list[StateRecord]:
    """Write every staged record into its document's shard; returns what was written."""
    staged = store.working_set.records(staged=True)
    if not staged:
        return []
    committed: dict[str, dict[tuple[str, str, str], StateRecord]] = {}
    for record in load_state(project_dir):
        committed.setdefault(record.document, {})[record.key] = record
    for record in staged:
        committed.setdefault(record.document, {})[record.key] = record
    folder = project_dir / STATE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for document in sorted({r.document for r in staged}):
        records = [committed[document][k] for k in sorted(committed[document])]
        file = folder / shard_name(document)
        tmp = file.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(shard_line(r) + "\n" for r in records), "utf-8")
        tmp.replace(file)
    store.working_set.mark_committed(staged)
    return staged
