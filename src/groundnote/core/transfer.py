"""Export a scope's truth to JSONL and import it into an empty scope, losslessly.

Exported: `source`, `source_attachment`, `rule`, `rule_decision`: every row, every column, in
seq order. Left out: projections that an import rebuilds (`rule_evidence`, `rule_fts`,
`source_fts`) and the operation log (`search_log`, `feedback`), which records calls rather
than knowledge and grows with every export. Lines are canonical JSON (sorted keys, no
spaces), so export → import → export gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel

from groundnote.core.fts import index_sources
from groundnote.core.propose import insert_rule
from groundnote.core.sources import insert_source
from groundnote.domain.errors import ValidationFailed
from groundnote.store.sql import Connection, IntegrityError, columns

__all__ = [
    "FORMAT",
    "MAX_IMPORT_CHARS",
    "TABLES",
    "VERSION",
    "ImportCounts",
    "export_lines",
    "import_lines",
]


FORMAT = "groundnote-core"
VERSION = 1
TABLES = ("source", "source_attachment", "rule", "rule_decision")
_ORDER = {
    "source": "seq",
    "source_attachment": "(SELECT seq FROM source WHERE id = source_id), n",
    "rule": "seq",
    "rule_decision": "seq",
}
MAX_IMPORT_CHARS = 50_000_000


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def export_lines(conn: Connection) -> Iterator[str]:
    """The header line, then one line per row of each truth table."""
    scope = conn.execute("SELECT scope FROM meta").fetchone()[0]
    yield _dump({"format": FORMAT, "version": VERSION, "scope": scope})
    for table in TABLES:
        for row in conn.execute(f"SELECT * FROM {table} ORDER BY {_ORDER[table]}"):
            yield _dump({"table": table, "row": dict(row)})


class ImportCounts(BaseModel):
    source: int = 0
    source_attachment: int = 0
    rule: int = 0
    rule_decision: int = 0


def _rows(lines: Iterable[str], known: dict[str, set[str]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """("", {"scope": …}) for the header, then (table, row) per line, each checked as it comes."""
    header = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"Line {number} is not JSON: {exc.msg}.") from exc
        if not header:
            if (
                not isinstance(data, dict)
                or data.get("format") != FORMAT
                or data.get("version") != VERSION
            ):
                raise ValidationFailed(
                    f"Line {number} is not a {FORMAT} export header (version {VERSION}).",
                    remedy="Import a file written by `export`, unchanged.",
                )
            header = True
            yield "", {"scope": str(data.get("scope"))}
            continue
        table = data.get("table") if isinstance(data, dict) else None
        row = data.get("row") if isinstance(data, dict) else None
        if table not in known or not isinstance(row, dict):
            raise ValidationFailed(
                f"Line {number}: expected {{table, row}} with table one of {', '.join(TABLES)}."
            )
        if set(row) != known[table]:
            raise ValidationFailed(
                f"Line {number}: the columns of {table} do not match this version "
                f"(expected {', '.join(sorted(known[table]))})."
            )
        yield table, row
    if not header:
        raise ValidationFailed("The import is empty; it needs the header line of an export.")


def _rename(rule_id: str | None, old: str, new: str) -> str | None:
    if rule_id is None or old == new:
        return rule_id
    return re.sub(rf"^{re.escape(old)}-(?=\d{{4,}}$)", f"{new}-", rule_id)


def _insert(conn: Connection, table: str, row: dict[str, Any]) -> None:
    names = list(row)
    conn.execute(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
        [row[n] for n in names],
    )


def import_lines(conn: Connection, lines: Iterable[str]) -> ImportCounts:
    """Write an export into this (empty) scope file inside the caller's write transaction.

    Rule ids carry the scope name, so an export of another scope is renamed on the way in.
    Every row passes the tables' checks and triggers, as when it was first written. Lines are
    written as they are read, so an import of any size holds one row at a time; the source
    index follows at the end, once each source's attachments are in. A refusal rolls back to
    the savepoint taken first: nothing of the import stays.
    """
    scope = conn.execute("SELECT scope FROM meta").fetchone()[0]
    if conn.execute(
        "SELECT EXISTS (SELECT 1 FROM source) OR EXISTS (SELECT 1 FROM rule)"
    ).fetchone()[0]:
        raise ValidationFailed(
            f"The scope {scope} is not empty; import writes only into an empty scope.",
            remedy="Create a new scope (`groundnote scope create NAME`) and import into it.",
        )
    known = {t: set(columns(conn, t)) for t in TABLES}
    counts = ImportCounts()
    old = scope
    conn.execute("SAVEPOINT core_import")
    try:
        for table, row in _rows(lines, known):
            if table == "source":
                insert_source(conn, row, [], index=False)
            elif table == "rule":
                row["id"] = _rename(row["id"], old, scope)
                row["supersedes"] = _rename(row["supersedes"], old, scope)
                insert_rule(conn, row)
            elif table == "rule_decision":
                row["rule_id"] = _rename(row["rule_id"], old, scope)
                _insert(conn, table, row)
            elif table:
                _insert(conn, table, row)
            else:
                old = row["scope"]
                continue
            setattr(counts, table, getattr(counts, table) + 1)
        index_sources(conn)
    except BaseException as exc:
        conn.execute("ROLLBACK TO core_import")
        conn.execute("RELEASE core_import")
        if isinstance(exc, IntegrityError):
            raise ValidationFailed(
                f"The store refused a row of the import: {exc}.",
                remedy="Import a file written by `export`, unchanged; nothing was written.",
            ) from exc
        raise
    conn.execute("RELEASE core_import")
    return counts
