"""Tables to JSON Lines and back, losslessly: the engine under `export` and `import`.

A subsystem declares which of its tables are truth (`Table`), in the order an import must
write them so that every row passes the tables' checks and triggers as it did when it was
first written; a `Transfer` strings such tables together under one format name and version.
Projections (closures, full-text indexes, the change record, caches) are never exported: the
transfer's `finish` rebuilds them inside the import's transaction.

The file: a header line `{"format", "version", <owner key>, "counts"}`, then one line
`{"table", "row"}` per row, tables in declared order, rows in each table's declared order.
Every line is canonical JSON (sorted keys, no spaces, UTF-8 as is), so an export of an
import of an export is the same bytes. docs/export.md describes the format for readers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from groundnote.domain.errors import ValidationFailed
from groundnote.domain.progress import Progress
from groundnote.store.sql import Connection, IntegrityError, columns

__all__ = [
    "Table",
    "Transfer",
    "dump_line",
    "export_lines",
    "import_lines",
    "refuse_unless_empty",
    "rename_ids",
]

Insert = Callable[[Connection, dict[str, Any]], None]


@dataclass(frozen=True)
class Table:
    """One truth table as a transfer reads and writes it.

    `where` narrows the rows to one owner (`:owner` is bound to it), for tables shared by
    several owners in one file (the impulses of each organisation in instance.db). `ids`
    are the columns whose values carry the owner's name inside ids (`sales-e0001`); an import
    under another name renames them. `owner_column` holds the owner's name itself. A table
    with `same_owner_only` is written only under the exported name (its rows quote whole
    answers that name the old owner); under another name its rows are left out and counted.
    """

    name: str
    order: str
    where: str = ""
    ids: tuple[str, ...] = ()
    owner_column: str | None = None
    same_owner_only: bool = False
    insert: Insert | None = None


@dataclass(frozen=True)
class Transfer:
    """A format: its tables in write order, and what an import rebuilds at its end."""

    format: str
    version: int
    owner_key: str  # the header's name for the owner: "scope", "org"
    tables: Sequence[Table]
    finish: Sequence[Callable[[Connection], None]] = ()
    # Older formats this one reads: (format, version); their tables are a subset of ours.
    reads: Sequence[tuple[str, int]] = field(default_factory=tuple)

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)


def dump_line(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _select(table: Table) -> str:
    where = f" WHERE {table.where}" if table.where else ""
    return f"SELECT * FROM {table.name}{where} ORDER BY {table.order}"


def _count(conn: Connection, table: Table, owner: str) -> int:
    where = f" WHERE {table.where}" if table.where else ""
    params = {"owner": owner} if table.where else {}
    count: int = conn.execute(f"SELECT count(*) FROM {table.name}{where}", params).fetchone()[0]
    return count


def export_lines(
    conn: Connection, transfer: Transfer, owner: str, progress: Progress | None = None
) -> Iterator[str]:
    """The header, then every row; the caller holds one read transaction around it all."""
    counts = {t.name: _count(conn, t, owner) for t in transfer.tables}
    yield dump_line(
        {
            "format": transfer.format,
            "version": transfer.version,
            transfer.owner_key: owner,
            "counts": counts,
        }
    )
    total, done = sum(counts.values()), 0
    for table in transfer.tables:
        params = {"owner": owner} if table.where else {}
        for row in conn.execute(_select(table), params):
            yield dump_line({"table": table.name, "row": dict(row)})
            done += 1
            if progress is not None and done % 1000 == 0:
                progress("export", done, total)
    if progress is not None:
        progress("export", done, total)


def rename_ids(value: Any, old: str, new: str) -> Any:
    """`value` with the ids that carry `old` (`old-0001`, `old-e0001`, `entity/old-e0001@2`,
    inside JSON text too) carrying `new`; other text unchanged."""
    if not isinstance(value, str) or old == new:
        return value
    return re.sub(rf"(?<![a-z0-9-]){re.escape(old)}-(?=[elr]?\d{{4,}}(?!\d))", f"{new}-", value)


def _header(number: int, data: Any, transfer: Transfer) -> tuple[str, dict[str, int]]:
    known = {(transfer.format, transfer.version), *transfer.reads}
    if not isinstance(data, dict) or (data.get("format"), data.get("version")) not in known:
        raise ValidationFailed(
            f"Line {number} is not a {transfer.format} export header (version {transfer.version}).",
            remedy="Import a file written by `export`, unchanged.",
        )
    owner = data.get(transfer.owner_key)
    counts = data.get("counts") or {}
    return str(owner), {str(k): int(v) for k, v in counts.items()}


def _lines(lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"Line {number} is not JSON: {exc.msg}.") from exc


def _row(number: int, data: Any, known: dict[str, set[str]], at: int) -> tuple[str, dict[str, Any]]:
    table = data.get("table") if isinstance(data, dict) else None
    row = data.get("row") if isinstance(data, dict) else None
    if table not in known or not isinstance(row, dict):
        raise ValidationFailed(
            f"Line {number}: expected {{table, row}} with table one of {', '.join(known)}."
        )
    if set(row) != known[table]:
        raise ValidationFailed(
            f"Line {number}: the columns of {table} do not match this version "
            f"(expected {', '.join(sorted(known[table]))})."
        )
    order = list(known)
    if order.index(table) < at:
        raise ValidationFailed(
            f"Line {number}: a {table} row after the rows of {order[at]}; an export writes "
            "each table once, in order.",
            remedy="Import a file written by `export`, unchanged.",
        )
    return table, row


# A table's rows go to the store a batch at a time (`insert_rows`, one statement on
# PostgreSQL): there a statement costs its parse, bind and plan, and the counting triggers
# (graph/0009 there) run once per statement, so an import of n rows paid n of each. Every row
# still passes its row triggers and checks, in file order.
_BATCH_ROWS = 1000


def _insert(conn: Connection, table: str, rows: list[dict[str, Any]]) -> None:
    names = list(rows[0])
    conn.insert_rows(table, names, [[row[n] for n in names] for row in rows])


def refuse_unless_empty(
    conn: Connection, transfer: Transfer, owner: str, what: str, remedy: str
) -> None:
    """Import writes only into an empty owner (it merges nothing): a refusal names what is
    there."""
    held = [(t.name, n) for t in transfer.tables if (n := _count(conn, t, owner))]
    if held:
        listed = ", ".join(f"{n} {name} rows" for name, n in held)
        raise ValidationFailed(
            f"{what} is not empty: it holds {listed}. Import writes only into an empty one "
            "and merges nothing.",
            remedy=remedy,
            held=dict(held),
        )


def import_lines(
    conn: Connection,
    transfer: Transfer,
    owner: str,
    lines: Iterable[str],
    progress: Progress | None = None,
    leave_out: frozenset[str] = frozenset(),
) -> dict[str, int]:
    """Write an export into `owner` inside the caller's write transaction; rows per table.

    The rows of the tables in `leave_out` are read, checked and counted as skipped.

    Rows are written as they are read, a batch at a time (an import of any size holds at
    most `_BATCH_ROWS` rows in memory). A refusal rolls back to the savepoint taken first:
    nothing of the import stays, and a killed process leaves its transaction uncommitted,
    which the database discards.
    """
    known = {t.name: set(columns(conn, t.name)) for t in transfer.tables}
    counts = {t.name: 0 for t in transfer.tables}
    skipped = 0
    conn.execute("SAVEPOINT transfer_import")
    try:
        stream = _lines(lines)
        first = next(stream, None)
        if first is None:
            raise ValidationFailed("The import is empty; it needs the header line of an export.")
        old, announced = _header(*first, transfer)
        total, done, at = sum(announced.values()), 0, 0
        batch: list[dict[str, Any]] = []
        batch_of = ""
        for number, data in stream:
            name, row = _row(number, data, known, at)
            at = list(known).index(name)
            table = transfer.table(name)
            assert table is not None
            done += 1
            if progress is not None and done % 1000 == 0:
                progress("import", done, total)
            if name in leave_out or (table.same_owner_only and old != owner):
                skipped += 1
                continue
            for column in table.ids:
                row[column] = rename_ids(row[column], old, owner)
            if table.owner_column is not None:
                row[table.owner_column] = owner
            if batch and (
                name != batch_of
                or table.insert is not None
                or len(batch) >= _BATCH_ROWS
                or row.keys() != batch[0].keys()  # one statement names one set of columns
            ):
                _insert(conn, batch_of, batch)
                batch = []
            if table.insert is not None:
                table.insert(conn, row)
            else:
                batch.append(row)
                batch_of = name
            counts[name] += 1
        if batch:
            _insert(conn, batch_of, batch)
        for step in transfer.finish:
            step(conn)
        if progress is not None:
            progress("import", done, total)
    except BaseException as exc:
        conn.execute("ROLLBACK TO transfer_import")
        conn.execute("RELEASE transfer_import")
        if isinstance(exc, IntegrityError):
            raise ValidationFailed(
                f"The store refused a row of the import: {exc}.",
                remedy="Import a file written by `export`, unchanged; nothing was written.",
            ) from exc
        raise
    conn.execute("RELEASE transfer_import")
    if skipped:
        counts["skipped"] = skipped
    return counts
