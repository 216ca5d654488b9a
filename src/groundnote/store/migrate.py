"""`groundnote migrate --to postgresql://…`: a whole SQLite home moved into a PostgreSQL
database (DESIGN §4), verified, then marked finished.

What goes where: every scope file becomes its schema `scope_<s>`, written by the export/import
engine (store/transfer.py: ids, seqs and timestamps kept, every row through the tables'
checks and triggers, projections rebuilt), plus the scope's tables a transfer leaves out but a
move must keep (`kept`: e.g. embeddings, the knowledge index); `instance.db` becomes the schema
`groundnote`: the tables of an owner-keyed transfer (the impulses, one organisation after the
other) through the engine, every other table row for row, parents before children.

Not copied, because the target makes its own: the migration ledgers (the target runs the same
migrations), `meta` (set to the scope's name), the change record (a signal to processes; a
fresh database has none to tell), the store's gate rows.

A migrate killed at any point leaves a target that no one uses by mistake: the instance's
`migrate_run` row is written before the first copied row and gets its `finished_at` last,
after the row counts of both sides agree and `check` found nothing. Opening a home whose
instance holds an unfinished run is refused (`refuse_unfinished`), and a second migrate into
it names what the first left. Each scope is one transaction, the instance another.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from groundnote.config import ConfigError
from groundnote.domain.errors import ValidationFailed
from groundnote.domain.progress import Progress
from groundnote.store.database import Database
from groundnote.store.inspect import table_counts
from groundnote.store.migrations import migrate
from groundnote.store.schemas import INSTANCE_SCHEMA, schema_for
from groundnote.store.sql import Connection, columns
from groundnote.store.transfer import Transfer, export_lines, import_lines, refuse_unless_empty

if TYPE_CHECKING:
    from groundnote.store.home import Home, Subsystem

__all__ = [
    "MigrateReport",
    "MigrateSpec",
    "migrate_home",
    "refuse_unfinished",
    "target_holdings",
]

# Tables no migrate copies: each store makes its own (see the module docstring).
_NOT_COPIED = frozenset({"migrations", "meta", "change_record", "migrate_run", "store_gate"})
_BATCH = 1000


@dataclass(frozen=True)
class MigrateSpec:
    """What the composition root knows and the store does not: which subsystems make each
    unit, how a scope is transferred, which of a scope's tables outside the transfer are kept
    as they are, and the owner-keyed transfers of the instance (the impulses)."""

    instance_subsystems: Sequence[Subsystem]
    scope_subsystems: Sequence[Subsystem]
    scope_transfer: Transfer
    scope_kept: Sequence[str] = ()
    instance_transfers: Sequence[Transfer] = ()


@dataclass
class MigrateReport:
    """Per unit (`instance`, `scope <s>`): table → (rows in SQLite, rows in PostgreSQL)."""

    counts: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    rows: int = 0
    seconds: float = 0.0

    @property
    def mismatches(self) -> list[str]:
        return [
            f"{unit}: {table} has {a} rows in SQLite and {b} in PostgreSQL"
            for unit, tables in self.counts.items()
            for table, (a, b) in tables.items()
            if a != b
        ]


def refuse_unfinished(instance: Database) -> None:
    """Refuse to open an instance a migrate began filling and never finished."""
    with instance.read() as conn:
        row = conn.execute(
            "SELECT source, started_at FROM migrate_run WHERE finished_at IS NULL"
        ).fetchone()
    if row is not None:
        raise ConfigError(
            f"the {instance.label} holds a migrate from {row[0]} begun at {row[1]} that never "
            "finished (it was interrupted, or its verification failed), so it may lack rows. "
            "Point database.url back at nothing (the SQLite home is unchanged) and run "
            "`groundnote migrate --to URL --replace-unfinished` again."
        )


def target_holdings(url: str) -> dict[str, str]:
    """The Groundnote schemas in the database at `url`: schema → what it holds, in words."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        schemas = [
            r[0]
            for r in conn.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname = %s OR nspname LIKE 'scope\\_%%' "
                "ORDER BY nspname",
                (INSTANCE_SCHEMA,),
            )
        ]
        held: dict[str, str] = {}
        for schema in schemas:
            held[schema] = _what_it_holds(conn, schema)
    return held


def _what_it_holds(conn: Any, schema: str) -> str:
    def scalar(sql: str) -> Any:
        return conn.execute(sql).fetchone()[0]

    tables = scalar(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{schema}'")
    if schema != INSTANCE_SCHEMA:
        return f"{tables} tables"
    words = [f"{tables} tables"]
    quoted = f'"{schema}"'
    if scalar(f"SELECT to_regclass('{quoted}.scope') IS NOT NULL"):
        words.append(f"{scalar(f'SELECT count(*) FROM {quoted}.scope')} registered scopes")
    if scalar(f"SELECT to_regclass('{quoted}.migrate_run') IS NOT NULL"):
        run = conn.execute(
            f'SELECT source, started_at, finished_at FROM "{schema}".migrate_run'
        ).fetchone()
        if run is not None and run[2] is None:
            words.insert(0, f"an unfinished migrate from {run[0]} (begun {run[1]})")
        elif run is not None:
            words.insert(0, f"a home migrated from {run[0]} at {run[2]}")
    return ", ".join(words)


def _refuse_occupied(url: str, replace_unfinished: bool) -> None:
    from groundnote.store.postgres import redacted

    held = target_holdings(url)
    if not held:
        return
    unfinished = held.get(INSTANCE_SCHEMA, "").startswith("an unfinished migrate")
    if unfinished and replace_unfinished:
        _drop_schemas(url, list(held))
        return
    listed = "; ".join(f"{schema}: {what}" for schema, what in held.items())
    remedy = (
        "Run the same command with --replace-unfinished: it drops these schemas and migrates again."
        if unfinished
        else "Migrate into a database without Groundnote schemas (CREATE DATABASE name TEMPLATE "
        "template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'), or, if this home already lives there, "
        "set database.url (or GROUNDNOTE_DATABASE_URL) to it instead of migrating."
    )
    raise ValidationFailed(
        f"The database {redacted(url)} already holds Groundnote schemas ({listed}); migrate "
        "writes only into a database that holds none, and merges nothing.",
        remedy=remedy,
        held=held,
    )


def _drop_schemas(url: str, schemas: list[str]) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


# -- copying -----------------------------------------------------------------------------------


def _order(conn: Connection, table: str) -> str:
    """Rows in primary-key order (rowid for a table without one): the same each run."""
    keys = sorted((r[5], r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")') if r[5])
    return ", ".join(f'"{name}"' for _, name in keys) or "rowid"


def _parents_first(conn: Connection, tables: Iterable[str]) -> list[str]:
    """`tables` ordered so that every table comes after those its foreign keys name."""
    pending = sorted(tables)
    needs = {
        t: {r[2] for r in conn.execute(f'PRAGMA foreign_key_list("{t}")')} & set(pending) - {t}
        for t in pending
    }
    ordered: list[str] = []
    while pending:
        ready = [t for t in pending if needs[t] <= set(ordered)]
        if not ready:
            raise ValueError(f"foreign keys form a cycle among {pending}")
        ordered += ready
        pending = [t for t in pending if t not in ready]
    return ordered


def _copy_table(src: Connection, dst: Connection, table: str, tick: Callable[[int], None]) -> int:
    """Every row of `table`, column for column, in batches, in place of the target's."""
    names = columns(src, table)
    if set(names) != set(columns(dst, table)):
        raise ValidationFailed(
            f"The table {table} has other columns in PostgreSQL than in SQLite; nothing of it "
            "was copied.",
            remedy="Run migrate with the same Groundnote version that last opened the home.",
        )
    listed = ", ".join(f'"{n}"' for n in names)
    # The target is new, so what it holds a migration seeded (impulse_sweep's one row): the
    # source's rows replace it.
    dst.execute(f"DELETE FROM {table}")
    insert = f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' for _ in names)})"
    cursor = src.execute(f'SELECT {listed} FROM "{table}" ORDER BY {_order(src, table)}')
    copied = 0
    while batch := cursor.fetchmany(_BATCH):  # type: ignore[attr-defined]
        dst.executemany(insert, [tuple(row) for row in batch])
        copied += len(batch)
        tick(len(batch))
    return copied


def _owners(conn: Connection, transfer: Transfer) -> list[str]:
    """Every owner (organisation) with a row in one of the transfer's owner-keyed tables."""
    selects = [
        f"SELECT DISTINCT {t.owner_column} FROM {t.name}"
        for t in transfer.tables
        if t.owner_column is not None
    ]
    return sorted({r[0] for r in conn.execute(" UNION ".join(selects))}) if selects else []


class _Bar:
    """One phase of the progress bar: rows of a unit."""

    def __init__(self, progress: Progress | None, phase: str, total: int) -> None:
        self.progress, self.phase, self.total, self.done = progress, phase, total, 0
        self(0)

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.phase, self.done, self.total)


def _total(counts: dict[str, int], tables: Iterable[str]) -> int:
    return sum(counts.get(t, 0) for t in tables)


def _pipelined(conn: Connection) -> AbstractContextManager[Any]:
    """psycopg's pipeline mode on the target: a row's INSERT goes out without waiting for the
    answer to the one before (a round trip per row was most of a migrate's time), errors still
    surface, at the latest when the transaction ends."""
    from groundnote.store.postgres import PgConnection

    assert isinstance(conn, PgConnection), "migrate writes into PostgreSQL"
    return conn.raw.pipeline()


def _copy_scope(source: Home, name: str, target: Database, spec: MigrateSpec, bar: _Bar) -> None:
    transfer = spec.scope_transfer
    with source.scope_db(name).read() as src, target.write() as dst:
        src.execute("BEGIN")  # one snapshot of the scope file for every table
        try:
            dst.execute("UPDATE meta SET scope = ?", (name,))
            refuse_unless_empty(dst, transfer, name, f"The schema {schema_for(name)}", "")

            def relay(phase: str, done: int, total: int) -> None:
                if phase == "import":
                    bar(done - bar.done)

            with _pipelined(dst):
                lines = export_lines(src, transfer, name)
                import_lines(dst, transfer, name, lines, progress=relay)
                for table in _parents_first(src, spec.scope_kept):
                    _copy_table(src, dst, table, bar)
        finally:
            src.execute("COMMIT")


def _copy_instance(source: Database, target: Database, spec: MigrateSpec, bar: _Bar) -> None:
    engine = {t.name for transfer in spec.instance_transfers for t in transfer.tables}
    with source.read() as src, target.write() as dst:
        src.execute("BEGIN")
        try:
            plain = [t for t in source.tables() if t not in engine and t not in _NOT_COPIED]
            with _pipelined(dst):
                for table in _parents_first(src, plain):
                    _copy_table(src, dst, table, bar)
                for transfer in spec.instance_transfers:
                    for owner in _owners(src, transfer):
                        lines = export_lines(src, transfer, owner)
                        counts = import_lines(dst, transfer, owner, lines)
                        bar(sum(counts.values()))
        finally:
            src.execute("COMMIT")


# -- the whole move ----------------------------------------------------------------------------


def _compare(source: Database, target: Database) -> dict[str, tuple[int, int]]:
    """Rows per table on both sides, for every table either side has but those each store
    makes for itself."""
    before, after = table_counts(source), table_counts(target)
    names = sorted((set(before) | set(after)) - _NOT_COPIED)
    return {t: (before.get(t, 0), after.get(t, 0)) for t in names}


def migrate_home(
    source: Home,
    url: str,
    spec: MigrateSpec,
    *,
    progress: Progress | None = None,
    replace_unfinished: bool = False,
) -> MigrateReport:
    """Copy `source` (a SQLite home) into the empty database at `url`, verify, mark finished.

    The report's `problems` name what the verification found; with any, the run stays
    unfinished and the target refuses to be opened.
    """
    from groundnote.store.postgres import PostgresDatabase

    started = time.monotonic()
    if source.database_url is not None:
        raise ValidationFailed(
            "This home already lives in a PostgreSQL database; migrate moves a SQLite home.",
            remedy="To move it between servers use pg_dump and pg_restore.",
        )
    _refuse_occupied(url, replace_unfinished)
    now = source.clock.instant()
    instance: Database = PostgresDatabase(url, INSTANCE_SCHEMA, source.busy_timeout)
    units = [(source.instance, instance)]
    report = MigrateReport()
    try:
        for subsystem in spec.instance_subsystems:
            migrate(instance, subsystem.name, list(subsystem.migrations), now)
        with instance.write() as conn:  # before the first copied row: see the docstring
            conn.execute(
                "INSERT INTO migrate_run (id, source, started_at) VALUES (1, ?, ?)",
                (str(source.path.absolute()), now),
            )
        for name in source.scope_names():
            target: Database = PostgresDatabase(url, schema_for(name), source.busy_timeout)
            units.append((source.scope_db(name), target))
            for subsystem in spec.scope_subsystems:
                migrate(target, subsystem.name, list(subsystem.migrations), now)
            tables = [t.name for t in spec.scope_transfer.tables] + list(spec.scope_kept)
            bar = _Bar(progress, name, _total(table_counts(units[-1][0]), tables))
            _copy_scope(source, name, target, spec, bar)
            target.analyze()  # planned for its rows from the first read on the new server
            report.rows += bar.done
        counts = table_counts(source.instance)
        bar = _Bar(progress, "instance", sum(v for k, v in counts.items() if k not in _NOT_COPIED))
        _copy_instance(source.instance, instance, spec, bar)
        instance.analyze()
        report.rows += bar.done

        _verify(report, source, units, spec)
        if not report.problems:
            with instance.write() as conn:  # last: the target is complete
                conn.execute("UPDATE migrate_run SET finished_at = ?", (source.clock.instant(),))
    finally:
        for _, unit in units:
            unit.close()
    report.seconds = time.monotonic() - started
    return report


def _verify(
    report: MigrateReport, source: Home, units: list[tuple[Database, Database]], spec: MigrateSpec
) -> None:
    """Row counts of both sides per table, and `check` of every target unit."""
    from groundnote.store.check import check_file

    names = ["instance", *(f"scope {name}" for name in source.scope_names())]
    for label, (before, after) in zip(names, units, strict=True):
        report.counts[label] = _compare(before, after)
        subsystems = spec.instance_subsystems if label == "instance" else spec.scope_subsystems
        report.problems += [f"{label}: {p}" for p in check_file(after, subsystems)]
    report.problems += report.mismatches
