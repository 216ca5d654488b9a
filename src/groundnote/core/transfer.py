"""Core's truth tables as an export carries them (the engine is store/transfer.py).

Exported: `source`, `source_attachment`, `rule`, `rule_decision` and the operation log
(`search_log`, `feedback`), every row and column. Rebuilt, not exported: `rule_evidence` (the
rows of `rule.evidence_refs`, written with each rule), `rule_fts`, `source_fts`, `fts_word`.
The scope's composition (runtime.py) puts the graph's tables between `TRUTH` and `LOG`.
"""

from __future__ import annotations

from typing import Any

from groundnote.core.fts import index_sources
from groundnote.core.propose import insert_rule
from groundnote.core.sources import insert_source
from groundnote.store.sql import Connection
from groundnote.store.transfer import Table

__all__ = ["CALLER_LEAVES_OUT", "EMPTY_SCOPE", "LOG", "MAX_IMPORT_CHARS", "TRUTH", "finish"]

MAX_IMPORT_CHARS = 50_000_000
# What `core.import` (a grant's call) does not write: the scope's idempotency keys, whose
# answers are replayed to the actors they name.
CALLER_LEAVES_OUT = frozenset({"call_key"})
EMPTY_SCOPE = "Create a new scope (`groundnote scope create NAME`) and import into it."


def _source(conn: Connection, row: dict[str, Any]) -> None:
    insert_source(conn, row, [], index=False)  # indexed by `finish`, once attachments are in


TRUTH = (
    Table("source", order="seq", insert=_source),
    Table("source_attachment", order="(SELECT s.seq FROM source s WHERE s.id = source_id), n"),
    Table("rule", order="seq", ids=("id", "supersedes"), insert=insert_rule),
    Table("rule_decision", order="seq", ids=("rule_id",)),
)
LOG = (
    Table("search_log", order="at, id", ids=("refs",)),
    Table("feedback", order="id", ids=("ref",)),
)


def finish(conn: Connection) -> None:
    """The sources' full-text rows (rules are indexed as they are written)."""
    index_sources(conn)
