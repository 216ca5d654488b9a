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
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from groundnote.auth.principal import Right
from groundnote.capabilities import Annotations, Capability, CliExposure, Context, HttpExposure
from groundnote.core.propose import insert_rule
from groundnote.core.sources import insert_source
from groundnote.domain.errors import PayloadTooLarge, ValidationFailed
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import ScopeName

__all__ = ["EXPORT", "FORMAT", "IMPORT", "export_lines", "import_lines"]

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


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def export_lines(conn: sqlite3.Connection) -> Iterator[str]:
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


def _parse(
    lines: Iterable[str], known: dict[str, set[str]]
) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    rows: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    header: str | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"Line {number} is not JSON: {exc.msg}.") from exc
        if header is None:
            if (
                not isinstance(data, dict)
                or data.get("format") != FORMAT
                or data.get("version") != VERSION
            ):
                raise ValidationFailed(
                    f"Line {number} is not a {FORMAT} export header (version {VERSION}).",
                    remedy="Import a file written by `export`, unchanged.",
                )
            header = str(data.get("scope"))
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
        rows[table].append(row)
    if header is None:
        raise ValidationFailed("The import is empty; it needs the header line of an export.")
    return header, rows


def _rename(rule_id: str | None, old: str, new: str) -> str | None:
    if rule_id is None or old == new:
        return rule_id
    return re.sub(rf"^{re.escape(old)}-(?=\d{{4,}}$)", f"{new}-", rule_id)


def import_lines(conn: sqlite3.Connection, lines: Iterable[str]) -> ImportCounts:
    """Write an export into this (empty) scope file inside the caller's write transaction.

    Rule ids carry the scope name, so an export of another scope is renamed on the way in.
    Every row passes the tables' checks and triggers, as when it was first written.
    """
    scope = conn.execute("SELECT scope FROM meta").fetchone()[0]
    if conn.execute(
        "SELECT EXISTS (SELECT 1 FROM source) OR EXISTS (SELECT 1 FROM rule)"
    ).fetchone()[0]:
        raise ValidationFailed(
            f"The scope {scope} is not empty; import writes only into an empty scope.",
            remedy="Create a new scope (`groundnote scope create NAME`) and import into it.",
        )
    known = {t: set(_columns(conn, t)) for t in TABLES}
    old, rows = _parse(lines, known)
    counts = ImportCounts()
    attachments: dict[str, list[dict[str, Any]]] = {}
    for att in rows["source_attachment"]:
        attachments.setdefault(att["source_id"], []).append(att)
    try:
        for source in rows["source"]:
            insert_source(conn, source, attachments.pop(source["id"], []))
        if attachments:
            raise ValidationFailed(
                f"Attachments of sources not in the export: {', '.join(attachments)}."
            )
        for rule in rows["rule"]:
            rule["id"] = _rename(rule["id"], old, scope)
            rule["supersedes"] = _rename(rule["supersedes"], old, scope)
            insert_rule(conn, rule)
        for decision in rows["rule_decision"]:
            decision["rule_id"] = _rename(decision["rule_id"], old, scope)
            names = list(decision)
            conn.execute(
                f"INSERT INTO rule_decision ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
                [decision[n] for n in names],
            )
    except sqlite3.IntegrityError as exc:
        raise ValidationFailed(
            f"The store refused a row of the import: {exc}.",
            remedy="Import a file written by `export`, unchanged; nothing was written.",
        ) from exc
    counts.source = len(rows["source"])
    counts.source_attachment = len(rows["source_attachment"])
    counts.rule = len(rows["rule"])
    counts.rule_decision = len(rows["rule_decision"])
    return counts


class ExportInput(StrictModel):
    scope: ScopeName


class ExportOutput(BaseModel):
    scope: str
    lines: int
    jsonl: str = Field(description="The export: a header line, then one JSON line per row.")


def export(ctx: Context, value: ExportInput) -> ExportOutput:
    with ctx.scope_db(value.scope).read() as conn:
        conn.execute("BEGIN")  # one snapshot for every table
        try:
            lines = list(export_lines(conn))
        finally:
            conn.execute("COMMIT")
    return ExportOutput(scope=value.scope, lines=len(lines), jsonl="\n".join(lines) + "\n")


class ImportInput(StrictModel):
    scope: ScopeName = Field(description="An empty scope to import into.")
    jsonl: str = Field(min_length=1, description="The text of an export.")


class ImportOutput(BaseModel):
    scope: str
    imported: ImportCounts
    next: list[Next] = Field(default_factory=list, max_length=3)


def import_(ctx: Context, value: ImportInput) -> ImportOutput:
    if len(value.jsonl) > MAX_IMPORT_CHARS:
        raise PayloadTooLarge(
            f"The import has {len(value.jsonl)} characters; at most {MAX_IMPORT_CHARS} go in one call.",
            remedy="Use `groundnote import` on the command line for larger files.",
        )
    with ctx.write(value.scope) as conn:
        counts = import_lines(conn, value.jsonl.splitlines())
    return ImportOutput(
        scope=value.scope,
        imported=counts,
        next=[Next(tool="search", why="the rules answer at once")],
    )


EXPORT: Capability[ExportInput, ExportOutput] = Capability(
    name="core.export",
    kind="query",
    right=Right.READ,
    input=ExportInput,
    output=ExportOutput,
    description=(
        "Export a scope's sources, attachments, rules and decisions as JSONL, losslessly: an "
        "import of it into an empty scope gives the same export again."
    ),
    handler=export,
    http=HttpExposure("GET", "/v1/scopes/{scope}/export"),
    cli=CliExposure(("scope", "export")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="export",
)

IMPORT: Capability[ImportInput, ImportOutput] = Capability(
    name="core.import",
    kind="command",
    right=Right.DECIDE,
    input=ImportInput,
    output=ImportOutput,
    description=(
        "Import an export into an empty scope: every row is checked as when it was first "
        "written, and nothing is written unless all of it fits. Rule ids are renamed to the "
        "target scope."
    ),
    handler=import_,
    http=HttpExposure("POST", "/v1/scopes/{scope}/import"),
    cli=CliExposure(("scope", "import")),
    annotations=Annotations(read_only=False),
)
