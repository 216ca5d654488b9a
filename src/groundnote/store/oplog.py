"""The operation log: one `search_log` row per call on every surface, reads included."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from groundnote.store.sql import Connection

__all__ = ["OpLogEntry", "write_entry"]


@dataclass
class OpLogEntry:
    """What a handler may add to its call's log row; the registry fills the rest."""

    refs: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    stages: dict[str, Any] = field(default_factory=dict)
    cross_scope: bool = False
    id: str = field(default_factory=lambda: "s-" + uuid.uuid4().hex[:20])
    written: bool = False


def write_entry(
    conn: Connection,
    entry: OpLogEntry,
    *,
    at: str,
    grant_id: str,
    channel: str,
    operation: str,
    outcome: str,
    input_sha256: str,
) -> None:
    conn.execute(
        "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, cross_scope, "
        "refs, terms, variants, stages, input_sha256) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            entry.id,
            at,
            grant_id,
            channel,
            operation,
            outcome,
            int(entry.cross_scope),
            json.dumps(entry.refs),
            json.dumps(entry.terms),
            json.dumps(entry.variants),
            json.dumps(entry.stages, sort_keys=True),
            input_sha256,
        ),
    )
    entry.written = True
