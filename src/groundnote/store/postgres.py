"""One PostgreSQL schema as a store unit (DESIGN §4): what SQLite keeps in one file.

The instance lives in the schema `groundnote`, a scope `<s>` in `scope_<s>` (`-` → `_`; scope
names have no `_`, so the mapping is one-to-one). Every unit of one database URL shares this
process's one connection pool (psycopg_pool); a checkout sets `search_path` to its unit's
schema (then `public`, where extensions live), so subsystem SQL names its tables unqualified
as on SQLite.

Placeholders: subsystem SQL is written once with `?` or `:name`; `numbered` turns them into
PostgreSQL's `$1`, `$2`, … for a statement bound server-side, and `translate` into psycopg's
`%s` / `%(name)s` for one bound client-side (both leave quoted text, identifiers, comments and
`$$` bodies alone; `translate` doubles a literal `%`). An empty list `IN ()` (SQLite takes it:
nothing is in it) becomes `IN (SELECT NULL WHERE false)`, which PostgreSQL takes with the same
meaning, NOT IN included.

Parameters are bound server-side and a statement run often on a connection is prepared
(psycopg's default): planning the graph's joins was two thirds of an entity_create (measured
27 → 74 creates/s on a loaded machine). A text parameter goes as `unknown`, so PostgreSQL
types it from its place as it types a literal. A None has no type the server could infer in
`? IS NULL`, so a statement with a None among its parameters is bound client-side (NULL
inline) instead, and so is one that asks `? IS NULL` at all (a value has no type there either).
An `INSERT … VALUES` is the exception: each value takes its column's type, None included, so
it stays bound server-side and prepared (an entity's version, whose evidence is mostly None,
was parsed and planned anew on every create). Booleans go as 0/1, as sqlite3 stores them
(flags are INTEGER columns). An integer goes as `integer` (`bigint` past its range), never as
psycopg's `smallint` for a small one: a prepared statement is kept per parameter types, so an
`IN (…)` of seqs small and large had a new type list nearly every call and was planned every
time (1.9 → 1.3 ms to read 46 entities' rows at 100,000).

Planner costs: a connection plans with `random_page_cost` 1.1 (memory and SSD) unless the
administrator set a value (`_PAGE_COST`).

The write gate holds across processes and servers: a write transaction (READ COMMITTED, so
each statement sees what the previous holder committed) first takes `SELECT … FOR UPDATE` on
the schema's one `store_gate` row, after this process's FIFO gate. The lock wait is bounded
by `lock_timeout` (what is left of `busy_timeout`); past it the caller gets `Busy`. Ids made
as `max+1` under that lock are never handed out twice. The one write outside the gate is a
row nothing is numbered from (`append`: the log row of a read), committed by itself.

The change record's fast path (SQLite's `PRAGMA data_version`) is the newest `seq` of the
schema's `change_record`, read from the database itself, so it holds across servers.

Errors: unique, check, foreign-key and not-null violations and a trigger's `RAISE EXCEPTION`
become the store's `IntegrityError` carrying the server's primary message (a trigger's text,
e.g. 'append-only', exactly); a lock timeout, a deadlock or a serialisation failure becomes
`Busy`; anything else `StoreError`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache, partial
from importlib import resources
from typing import Any, Literal

import psycopg
import psycopg.errors
from psycopg.adapt import Dumper, PyFormat
from psycopg.pq import TransactionStatus
from psycopg.types.numeric import FloatLoader, IntBinaryDumper, IntDumper
from psycopg_pool import ConnectionPool, PoolTimeout

from groundnote.config import ConfigError
from groundnote.domain.cancel import check_before_commit
from groundnote.store import citus, tenancy
from groundnote.store.database import (
    CHANGE_BOUNDS_SQL,
    DEFAULT_BUSY_TIMEOUT,
    Database,
    busy,
    call_versions,
    gate_for,
)
from groundnote.store.gate import GateTimeout
from groundnote.store.sql import (
    Backend,
    Connection,
    Cursor,
    IntegrityError,
    Parameters,
    StoreError,
)

log = logging.getLogger(__name__)

__all__ = [
    "GATE_TABLE",
    "PgConnection",
    "PgRow",
    "PostgresDatabase",
    "close_pools",
    "connect",
    "is_postgres_url",
    "numbered",
    "redacted",
    "schema_exists",
    "translate",
]

GATE_TABLE = "store_gate"
DEFAULT_POOL_SIZE = 20

# SQLite's functions (json_valid, json_patch, printf's padding, …) that checks, triggers and
# statements of the migration twins call: one file, created in every schema the store makes.
_FUNCTIONS_SQL = resources.files("groundnote.store").joinpath("postgres_functions.sql").read_text()
_FUNCTIONS = sorted(set(re.findall(r"CREATE OR REPLACE FUNCTION (\w+)\(", _FUNCTIONS_SQL)))


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


# -- placeholders ---------------------------------------------------------------------------

_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EMPTY_LIST = re.compile(r"\(\s*\)")
_IN_BEFORE = re.compile(r"\bIN\s*\Z", re.IGNORECASE)
EMPTY_LIST = "(SELECT NULL WHERE false)"


@lru_cache(maxsize=4096)
def translate(sql: str, bound: bool = True) -> str:
    """With parameters (`bound`): `?` → `%s`, `:name` → `%(name)s`, `%` → `%%`; always
    `IN ()` → `IN (SELECT NULL WHERE false)`; never inside quotes, comments or `$$` bodies.
    For a statement bound client-side, and one without parameters (`bound=False`)."""
    return _rewritten(sql, "format" if bound else None)[0]


@lru_cache(maxsize=4096)
def numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """`sql` with PostgreSQL's own placeholders for a statement bound server-side: `?` → `$1`,
    `$2`, … in order; `:name` → one `$k` per distinct name, whose names come back in the
    order of their numbers (empty for `?`). `IN ()` as `translate` writes it.

    psycopg parses a `%s` statement's text in Python on every run, and caches the parse only
    for statements of at most 50 parameters, which a page's IN lists pass (64 seqs: 0.49 ms
    for a search's heads statement against 0.28 ms in `$k` form, which psycopg sends as it
    is)."""
    return _rewritten(sql, "numbered")


def _rewritten(
    sql: str, style: Literal["format", "numbered"] | None
) -> tuple[str, tuple[str, ...]]:
    """`sql` with its placeholders in `style` (None: left as they are), and the names of
    `:name` placeholders in the order of their numbers (`numbered` only)."""
    out: list[str] = []
    names: dict[str, int] = {}
    positional = 0
    escape = style == "format"
    i, n = 0, len(sql)

    def verbatim(end: int) -> int:
        text = sql[i:end]
        out.append(text.replace("%", "%%") if escape else text)
        return end

    while i < n:
        c = sql[i]
        if c in "'\"":
            end = sql.find(c, i + 1)
            i = verbatim(n if end < 0 else end + 1)
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = verbatim(n if end < 0 else end)
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = verbatim(n if end < 0 else end + 2)
        elif c == "$" and (tag := _DOLLAR.match(sql, i)):
            close = sql.find(tag.group(0), tag.end())
            i = verbatim(n if close < 0 else close + len(tag.group(0)))
        elif c == "(" and (empty := _EMPTY_LIST.match(sql, i)) and _IN_BEFORE.search(sql, 0, i):
            out.append(EMPTY_LIST)
            i = empty.end()
        elif style is not None and c == "?":
            positional += 1
            out.append("%s" if escape else f"${positional}")
            i += 1
        elif (
            style is not None
            and c == ":"
            and (i == 0 or sql[i - 1] != ":")
            and (name := _NAME.match(sql, i + 1))
        ):
            key = name.group(0)
            out.append(f"%({key})s" if escape else f"${names.setdefault(key, len(names) + 1)}")
            i = name.end()
        elif escape and c == "%":
            out.append("%%")
            i += 1
        else:
            out.append(c)
            i += 1
    if positional and names:
        raise ValueError(f"a statement takes `?` or `:name` parameters, not both: {sql[:80]}")
    return "".join(out), tuple(names)


# -- rows -----------------------------------------------------------------------------------


class PgRow:
    """A row as sqlite3.Row gives it: by name (case-insensitive, like SQLite), by position,
    `keys()`, `dict(row)`, iteration over the values."""

    __slots__ = ("_index", "_values")

    def __init__(self, values: Sequence[Any], index: Mapping[str, int]) -> None:
        self._values = values
        self._index = index

    def __getitem__(self, key: int | str, /) -> Any:
        if isinstance(key, str):
            at = self._index.get(key)
            if at is None:
                at = self._index.get(key.lower())
            if at is None:
                raise IndexError(f"No item with that key: {key!r}")
            return self._values[at]
        return self._values[key]

    def keys(self) -> list[str]:
        return list(self._index)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PgRow):
            return NotImplemented
        return self.keys() == other.keys() and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash((tuple(self._index), tuple(self._values)))

    def __repr__(self) -> str:
        return f"PgRow({dict(zip(self._index, self._values, strict=False))!r})"


def _row_factory(cursor: Any) -> Any:
    # Called for every result: the names are read off the result itself (cursor.description
    # builds a Column object per column) and the row maker is kept per list of names, which
    # repeats with the statement.
    result = cursor.pgresult
    if result is None or not result.nfields:
        return tuple
    return _row_maker(tuple(result.fname(at) for at in range(result.nfields)))


@lru_cache(maxsize=1024)
def _row_maker(names: tuple[bytes, ...]) -> Callable[[Sequence[Any]], PgRow]:
    index: dict[str, int] = {}
    for at, raw in enumerate(names):
        name = raw.decode()
        index.setdefault(name, at)
        index.setdefault(name.lower(), at)

    def make(values: Sequence[Any]) -> PgRow:
        return PgRow(values, index)

    return make


# -- errors ---------------------------------------------------------------------------------


class LockTimeout(StoreError):
    """Another writer held a lock past `lock_timeout` (or a deadlock/serialisation failure)."""


_BUSY = (
    psycopg.errors.LockNotAvailable,
    psycopg.errors.DeadlockDetected,
    psycopg.errors.SerializationFailure,
)


def mapped(exc: psycopg.Error) -> StoreError:
    """psycopg's error as the store's (see the module docstring)."""
    message = exc.diag.message_primary or str(exc)
    if isinstance(exc, psycopg.errors.IntegrityError | psycopg.errors.RaiseException):
        return IntegrityError(message)
    if isinstance(exc, _BUSY):
        return LockTimeout(message)
    return StoreError(message)


def _values(parameters: Parameters) -> tuple[Parameters, bool]:
    """The parameters as PostgreSQL takes them (booleans as 0/1) and whether one is None."""
    if isinstance(parameters, Mapping):
        named = {k: int(v) if isinstance(v, bool) else v for k, v in parameters.items()}
        return named, any(v is None for v in named.values())
    values = [int(v) if isinstance(v, bool) else v for v in parameters]
    return values, any(v is None for v in values)


def _in_order(values: Parameters, names: tuple[str, ...]) -> Parameters:
    """Named values as the numbered placeholders take them (`numbered`)."""
    if isinstance(values, Mapping):
        return [values[name] for name in names]
    return values


def _as_given(values: Parameters) -> Parameters:
    return values


_PARAMETER_TESTED = re.compile(
    r"(\?|(?<!:):[A-Za-z_][A-Za-z0-9_]*)\s+IS\s+(NOT\s+)?NULL", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def _tests_a_parameter(sql: str) -> bool:
    """Whether `sql` asks `? IS NULL` (an optional filter): a parameter bound server-side
    has no type there even when it is not None ("could not determine data type of
    parameter"), so such a statement is bound client-side, as one with a None is."""
    return _PARAMETER_TESTED.search(sql) is not None


_INSERT_VALUES = re.compile(
    r"\s*INSERT\s+INTO\s+[\w.\"]+\s*\([^()]*\)\s*VALUES\s*\(", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def _inserts_values(sql: str) -> bool:
    """Whether `sql` is an `INSERT INTO t (…) VALUES (…)`, where every parameter takes the type
    of its column, a None too."""
    return _INSERT_VALUES.match(sql) is not None


class _Deferred:
    """A cursor whose statement went out in pipeline mode: its result (and its error, if the
    server refused it or an earlier statement) arrives when it is read, so reading maps the
    error as `execute` does; `rowcount` waits for the result."""

    __slots__ = ("_conn", "_cursor", "_pipeline")

    def __init__(
        self, conn: PgConnection, cursor: psycopg.Cursor[Any], pipeline: psycopg.Pipeline
    ) -> None:
        self._conn = conn
        self._cursor = cursor
        self._pipeline = pipeline

    @property
    def rowcount(self) -> int:
        self._wait()
        return self._cursor.rowcount

    @property
    def description(self) -> Any:
        self._wait()
        return self._cursor.description

    def _wait(self) -> None:
        # Read after its write ended (`cursor.rowcount` past the `with`): leaving the pipeline
        # waited for every result already, and syncing a pipeline that is gone is an error.
        if self._conn.pipeline is self._pipeline:
            _synced(self._pipeline)

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except psycopg.Error as exc:
            raise mapped(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return self._cursor.fetchall()
        except psycopg.Error as exc:
            raise mapped(exc) from exc

    def __iter__(self) -> Iterator[Any]:
        # Row by row, as psycopg's own cursor iterates: a list of every row first doubled the
        # memory a resolve index's build at 100,000 entities took.
        try:
            yield from self._cursor
        except psycopg.Error as exc:
            raise mapped(exc) from exc


def _synced(pipeline: psycopg.Pipeline) -> None:
    try:
        pipeline.sync()
    except psycopg.Error as exc:
        raise mapped(exc) from exc


class PgConnection:
    """A pooled psycopg connection speaking the store's Connection protocol.

    Inside a write (and a snapshot) the connection is in pipeline mode (`pipeline` set): a
    statement whose rows nobody reads (an INSERT, a trigger-checked write) is sent without
    waiting for its answer, and goes out with the next statement that is read, so a write's
    run of inserts costs one round trip instead of one each. The order of statements is kept
    and every error still reaches the caller, at the next read or at the latest before COMMIT.
    A script of several statements (a migration) cannot go through a pipeline: the pipeline
    is drained and left for it, and taken up again after it.
    """

    backend: Backend = "postgresql"

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw
        self.pipeline: psycopg.Pipeline | None = None
        self.recorded: set[str] | None = None
        self._manager: Any = None

    def execute(self, sql: str, parameters: Parameters = (), /) -> Cursor:
        if self.pipeline is not None and _ROLLBACK_TO.match(sql):
            # A refusal inside a savepoint (an import, an audit) left the pipeline aborted:
            # every later statement would fail as "pipeline aborted" until a sync. The error
            # reached the caller, who is rolling back from it, so it is waited for and dropped.
            with suppress(psycopg.Error):
                self.pipeline.sync()
        if self.pipeline is not None and not parameters and _is_script(sql):
            self._leave_pipeline()
            cursor = self.execute(sql)  # failed: the write rolls back, no pipeline to resume
            self._enter_pipeline()
            return cursor
        try:
            if not parameters:
                cursor = self.raw.cursor()
                cursor.execute(translate(sql, bound=False), prepare=_worth_preparing(sql))
            else:
                values, has_none = _values(parameters)
                cursor, text, order = self._binding(sql, has_none)
                cursor.execute(text, order(values), prepare=_worth_preparing(sql))
        except psycopg.Error as exc:
            raise mapped(exc) from exc
        return cursor if self.pipeline is None else _Deferred(self, cursor, self.pipeline)

    def prefetch(self, sql: str, parameters: Parameters = (), /) -> Cursor:
        # In a pipeline `execute` already leaves the answer on its way; outside one it waited.
        return self.execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Parameters], /) -> Cursor:
        rows = [_values(p) for p in parameters]
        cursor, text, order = self._binding(sql, any(none for _, none in rows))
        try:
            cursor.executemany(text, [order(values) for values, _ in rows])
        except psycopg.Error as exc:
            raise mapped(exc) from exc
        return cursor if self.pipeline is None else _Deferred(self, cursor, self.pipeline)

    def _binding(
        self, sql: str, has_none: bool
    ) -> tuple[Any, str, Callable[[Parameters], Parameters]]:
        """The cursor, the statement's text and the ordering of its values: bound client-side
        (NULL inline) where the server could not type a parameter (see the module docstring),
        else server-side in `$k` form (`numbered`)."""
        if (has_none and not _inserts_values(sql)) or _tests_a_parameter(sql):
            return psycopg.ClientCursor(self.raw), translate(sql), _as_given
        text, names = numbered(sql)
        return psycopg.RawCursor(self.raw), text, partial(_in_order, names=names)

    def sync(self) -> None:
        """Wait for every statement sent so far; raise the first error among them."""
        if self.pipeline is not None:
            _synced(self.pipeline)

    @contextmanager
    def pipelined(self) -> Iterator[None]:
        """Pipeline mode for the block; leaving it waits for what is still on its way."""
        self._enter_pipeline()
        try:
            yield
        except BaseException as exc:
            self._leave_pipeline(exc)
            raise
        self._leave_pipeline()

    def _enter_pipeline(self) -> None:
        self._manager = self.raw.pipeline()
        self.pipeline = self._manager.__enter__()

    def _leave_pipeline(self, error: BaseException | None = None) -> None:
        if error is not None:
            manager, self._manager, self.pipeline = self._manager, None, None
            if manager is not None:
                manager.__exit__(type(error), error, error.__traceback__)
            return
        try:
            self.end_pipeline()
        except psycopg.Error as exc:
            raise mapped(exc) from exc

    def end_pipeline(self) -> None:
        """Leave pipeline mode now (if in it; a script that failed left it already): one Sync
        answers everything still on its way, and psycopg's error, if any, is raised as is."""
        manager, self._manager, self.pipeline = self._manager, None, None
        if manager is not None:
            manager.__exit__(None, None, None)

    def close(self) -> None:
        self.raw.close()

    def insert_rows(
        self, table: str, names: Sequence[str], rows: Sequence[Sequence[Any]], /
    ) -> None:
        """The rows in one statement, sent as one JSON parameter that PostgreSQL reads into
        the table's row type (each column typed as declared), in their order: per row, an
        INSERT cost its parse, bind and plan, and a statement trigger ran once per row. A
        multi-row VALUES list would bind as many parameters, which psycopg parses out of the
        statement's text on every call (two thirds of an import's client time)."""
        if not rows:
            return
        listed = ", ".join(names)
        payload = json.dumps(
            [dict(zip(names, _values(row)[0], strict=True)) for row in rows], ensure_ascii=False
        )
        self.execute(
            f"INSERT INTO {table} ({listed}) SELECT {listed} FROM "
            f"json_populate_recordset(NULL::{table}, CAST(? AS json)) WITH ORDINALITY AS r "
            "ORDER BY r.ordinality",
            (payload,),
        )


def _caught_refusal() -> StoreError:
    return StoreError(
        "a statement of this write failed and its error was caught; PostgreSQL aborted the "
        "transaction, nothing was written"
    )


_ROLLBACK_TO = re.compile(r"\s*ROLLBACK\s+TO\b", re.IGNORECASE)
_CONTROL = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET)\b", re.IGNORECASE)


@lru_cache(maxsize=1024)
def _worth_preparing(sql: str) -> bool | None:
    """None (psycopg's default: prepared from its fifth run) unless `sql` controls the
    transaction, which has no plan to keep, or matches full text, whose best plan depends on
    the words.

    A transaction's control: psycopg 3.3.9 loses track of such a statement prepared in a
    pipeline a refusal aborted: the server skipped the PREPARE, and psycopg's next run of it
    failed with 'prepared statement does not exist' (a COMMIT queued after a refused INSERT;
    tests/store/test_backends.py).

    Full text: a prepared statement soon runs a generic plan, which knows nothing of how
    many rows the words match and walks the newest rows backwards checking each; a rare word
    then read every row of the table (80 ms of a search at 100,000 sources, where the bitmap
    of the GIN index takes 3). Unprepared, each run is planned for its own words."""
    return False if _CONTROL.match(sql) or "@@" in sql else None


@lru_cache(maxsize=1024)
def _is_script(sql: str) -> bool:
    return len(list(citus.statements(sql))) > 1


# -- the pools ------------------------------------------------------------------------------


@dataclass
class _Pool:
    pool: ConnectionPool[Any]
    users: int = 0
    # search_path each connection was last set to (weak: the pool may replace connections)
    paths: weakref.WeakKeyDictionary[Any, str] = field(default_factory=weakref.WeakKeyDictionary)


_POOLS: dict[tuple[int, str], _Pool] = {}
_POOLS_LOCK = threading.Lock()


class _IntegerDumper(IntDumper):
    """An int as `integer` when it fits (see the module's docstring), else as psycopg has it."""

    def upgrade(self, obj: int, format: PyFormat) -> Dumper:
        return (
            self._int4_dumper if -(2**31) <= obj < 2**31 else IntDumper.upgrade(self, obj, format)
        )


class _IntegerBinaryDumper(IntBinaryDumper):
    upgrade = _IntegerDumper.upgrade


# PostgreSQL's built-in random_page_cost (4) prices a page reached through an index as a
# spinning disk's seek. Groundnote's working set is read from memory or SSD, and at 4 the
# planner walked 30,000 of the newest sources backwards for a three-word search where the GIN
# bitmap read the 2,000 that match (search p95 at 100,000 sources 23 → 21 ms). 1.1 is the
# value commonly given for SSD. A value the administrator set (in postgresql.conf, for the
# database or the role) is theirs and left alone.
_PAGE_COST = (
    "SELECT set_config('random_page_cost', '1.1', false) FROM pg_settings "
    "WHERE name = 'random_page_cost' AND source = 'default'"
)


def _configure(conn: psycopg.Connection[Any]) -> None:
    # numeric (avg(), sums of numerics) as float, as SQLite answers it
    conn.adapters.register_loader("numeric", FloatLoader)
    conn.adapters.register_dumper(int, _IntegerDumper)
    conn.adapters.register_dumper(int, _IntegerBinaryDumper)
    conn.execute(_PAGE_COST)
    citus.configure_session(conn)


def _suitable(url: str) -> None:
    """Connect once outside the pool, so a wrong URL or a server that is down is told as such
    (a pool only times out), and refuse a database whose collation is not C: ids, keys and
    ranges on text are ordered bytewise on SQLite, and must be so here."""
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            row = conn.execute(
                "SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()"
            ).fetchone()
    except psycopg.Error as exc:
        raise ConfigError(
            f"cannot connect to the database {redacted(url)}: {str(exc).strip()}. Check "
            "database.url (or GROUNDNOTE_DATABASE_URL, --database-url) and that the server runs."
        ) from exc
    if row is None or row[0] not in _C_COLLATIONS:
        raise ConfigError(
            f"the database {redacted(url)} sorts text by {row[0] if row else '?'!r}; Groundnote "
            "needs the C collation. Create it with `CREATE DATABASE name TEMPLATE template0 "
            "LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'` (or ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C')."
        )


_C_COLLATIONS = {"C", "POSIX", "C.UTF-8", "C.utf8"}


def _acquire(url: str, size: int) -> _Pool:
    """This process's one pool for `url` (a forked child makes its own)."""
    key = (os.getpid(), url)
    with _POOLS_LOCK:
        entry = _POOLS.get(key)
        if entry is None:
            _suitable(url)
            pool: ConnectionPool[Any] = ConnectionPool(
                url,
                min_size=1,
                max_size=size,
                kwargs={
                    "autocommit": True,
                    "row_factory": _row_factory,
                    "application_name": "groundnote",
                },
                configure=_configure,
                name=f"groundnote {redacted(url)}",
                open=True,
            )
            entry = _POOLS[key] = _Pool(pool)
        entry.users += 1
        return entry


def _release(url: str) -> None:
    key = (os.getpid(), url)
    with _POOLS_LOCK:
        entry = _POOLS.get(key)
        if entry is None:
            return
        entry.users -= 1
        if entry.users > 0:
            return
        del _POOLS[key]
    entry.pool.close()


def close_pools(url: str | None = None) -> None:
    """Close this process's pools (of one URL, or all), e.g. before dropping a database."""
    with _POOLS_LOCK:
        keys = [k for k in _POOLS if url is None or k[1] == url]
        entries = [_POOLS.pop(k) for k in keys]
    for entry in entries:
        entry.pool.close()


def connect(url: str, schema: str) -> PgConnection:
    """A connection of its own (no pool, autocommit) on one schema, speaking the store's
    protocol: for tools and tests that go around the store units (the caller closes
    `.raw`)."""
    raw = psycopg.connect(
        url, autocommit=True, cursor_factory=psycopg.ClientCursor, row_factory=_row_factory
    )
    _configure(raw)
    raw.execute(f"SET search_path TO {_quoted(schema)}, public")
    return PgConnection(raw)


def schema_exists(url: str, schema: str) -> bool:
    """Whether `schema` exists in the database at `url` (one short connection, no pool)."""
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        row = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
    return row is not None


def _quoted(name: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"{name!r} is not a schema name the store makes")
    return f'"{name}"'


# -- the store unit -------------------------------------------------------------------------


class PostgresDatabase(Database):
    """One schema of one PostgreSQL database, shared by many subsystems."""

    backend: Backend = "postgresql"

    def __init__(
        self,
        url: str,
        schema: str,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        super().__init__()
        self.url = url
        self.schema = schema
        self.label = f"schema {schema}"
        self.busy_timeout = busy_timeout
        self._pool_size = pool_size
        self._quoted = _quoted(schema)
        self._set_path = self._path_sql(None)  # and the schema's role, once it is known: below
        self._version_sql = f"SELECT coalesce(max(seq), 0) FROM {self._quoted}.change_record"
        self.gate = gate_for(f"{url}#{schema}", self.label)
        self._entry: _Pool | None = None
        self._local = threading.local()
        self._writer: PgConnection | None = None
        self._pinned_version: int | None = None
        self._snapshot_lock = threading.Lock()
        self._ensure_schema()

    # -- connections --------------------------------------------------------------------------

    def _pool(self) -> _Pool:
        if self._entry is None:
            self._entry = _acquire(self.url, self._pool_size)
        return self._entry

    @contextmanager
    def _checkout(
        self, timeout: float | None = None, *, on_path: bool = True
    ) -> Iterator[PgConnection]:
        """A pooled connection; `on_path`: with `search_path` on this schema (a round trip
        when the connection last served another; a caller that sets it itself or names its
        tables qualified says False)."""
        entry = self._pool()
        try:
            with entry.pool.connection(timeout=timeout or self.busy_timeout) as raw:
                if on_path and entry.paths.get(raw) != self.schema:
                    raw.execute(self._set_path)
                    entry.paths[raw] = self.schema
                yield PgConnection(raw)
        except PoolTimeout as exc:
            raise busy(self.label, self.busy_timeout) from exc

    def _on_path(self, conn: PgConnection) -> None:
        """Note that `conn` was put on this schema by a statement of the caller's."""
        self._pool().paths[conn.raw] = self.schema

    def _ensure_schema(self) -> None:
        """Create the schema, its gate row and its functions (postgres_functions.sql) once,
        under an advisory lock: two processes opening a new scope at once must not both create
        it. A schema missing one of the functions (made by an older Groundnote, or the file
        gained one) gets them all (again: CREATE OR REPLACE). The schema is owned by its role
        (store/tenancy.py), which every checkout serving it then runs as."""
        with self._checkout(on_path=False) as conn:
            # as the login role: a pooled connection may still run as another schema's role
            conn.raw.execute("RESET ROLE")
            self._pool().paths.pop(conn.raw, None)
            found = conn.raw.execute(
                "SELECT to_regclass(%s) IS NOT NULL AND (SELECT count(DISTINCT proname) "
                "FROM pg_proc WHERE pronamespace = to_regnamespace(%s)::oid "
                "AND proname = ANY(%s)) = %s, "
                "(SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = %s)",
                (
                    f"{self._quoted}.{GATE_TABLE}",
                    self.schema,
                    _FUNCTIONS,
                    len(_FUNCTIONS),
                    self.schema,
                ),
            ).fetchone()
            role = tenancy.role_for(self.schema)
            if found is not None and found[0] and (found[1] == role or citus.has_citus(conn.raw)):
                self._use_role(role if found[1] == role else None)
                return
            conn.raw.execute("BEGIN")
            try:
                # one lock for the whole database: the extension is per database, not schema
                conn.raw.execute("SELECT pg_advisory_xact_lock(hashtext('groundnote schemas'))")
                # entity recall's trigram index (graph/0002); in public, which every unit sees
                conn.raw.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
                citus.distribute_on_create(conn.raw, self.schema)
                conn.raw.execute(f"CREATE SCHEMA IF NOT EXISTS {self._quoted}")
                conn.raw.execute(
                    f"CREATE TABLE IF NOT EXISTS {self._quoted}.{GATE_TABLE} "
                    "(id INTEGER PRIMARY KEY CHECK (id = 1))"
                )
                conn.raw.execute(
                    f"INSERT INTO {self._quoted}.{GATE_TABLE} (id) VALUES (1) "
                    "ON CONFLICT DO NOTHING"
                )
                # the SQLite functions the migration twins use, before any of them runs
                conn.raw.execute(f"SET LOCAL search_path TO {self._quoted}, public")
                citus.run_script(conn.raw, _FUNCTIONS_SQL)
                owner = tenancy.adopt(conn.raw, self.schema)
            except BaseException:
                conn.raw.execute("ROLLBACK")
                raise
            conn.raw.execute("COMMIT")
        self._use_role(owner)

    def _use_role(self, role: str | None) -> None:
        """Checkouts serving this schema run as `role` (None: as the login role)."""
        self._set_path = self._path_sql(role)

    def _path_sql(self, role: str | None) -> str:
        """One statement putting a connection on this schema and its role, so that it can go
        in a write's pipeline (a script of two cannot). The role is always set, to the login
        role when the schema has none: a pooled connection may come from another schema's."""
        return (
            f"SELECT set_config('role', '{role or 'none'}', false), "
            f"set_config('search_path', '{self._quoted}, public', false)"
        )

    # -- the three ways in --------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads (autocommit). Inside `write()` it is the writer; a nested
        read in the same thread gets the same connection."""
        if self.gate.held_by_current_thread and self._writer is not None:
            yield self._writer
            return
        held: PgConnection | None = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        try:
            with self._checkout() as conn:
                self._local.conn = conn
                try:
                    yield conn
                finally:
                    self._local.conn = None
        except LockTimeout as exc:
            raise busy(self.label, self.busy_timeout) from exc

    @contextmanager
    def append(self) -> Iterator[Connection]:
        """A reader's connection (autocommit): each statement commits by itself, as durably as
        a write, without the gate row, whose lock and transaction cost a read's log row a third
        of its time (0.72 → 0.49 ms). Inside `write()` in this thread it is the writer."""
        with self.read() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One READ COMMITTED transaction holding the schema's gate row (see the module
        docstring), in pipeline mode; committed on success, rolled back on error or
        cancellation."""
        deadline = time.monotonic() + self.busy_timeout
        try:
            with (
                self.gate.permit(self.busy_timeout),
                self._checkout(max(0.001, deadline - time.monotonic()), on_path=False) as conn,
            ):
                left_ms = max(1, int((deadline - time.monotonic()) * 1000))
                try:
                    with self._pipelined(conn):
                        # sent together with the write's first statement that is read: the
                        # path (session-wide, it outlives the transaction) unless the
                        # connection is on it, the transaction, the bound on the lock wait,
                        # the lock
                        if self._pool().paths.get(conn.raw) != self.schema:
                            conn.execute(self._set_path)
                            self._on_path(conn)
                        for statement in (
                            "BEGIN ISOLATION LEVEL READ COMMITTED",
                            f"SET LOCAL lock_timeout = {left_ms}",
                            f"SELECT id FROM {GATE_TABLE} WHERE id = 1 FOR UPDATE",
                        ):
                            conn.execute(statement)
                        conn.recorded = set()
                        self._writer = conn
                        yield conn
                        check_before_commit()  # a call cancelled by now writes nothing
                        applies = self._before_commit(conn)
                        self._writer, self._pinned_version = None, None
                        self._commit(conn)
                except BaseException:
                    self._writer, self._pinned_version = None, None
                    if conn.raw.info.transaction_status != TransactionStatus.IDLE:
                        conn.raw.execute("ROLLBACK")
                    # The SET of search_path went in the transaction, so it may be rolled back
                    # with it: the next checkout sets it again.
                    self._pool().paths.pop(conn.raw, None)
                    raise
                finally:
                    conn.recorded = None
                # the pipeline is left: every answer read ahead of the COMMIT is in
                self._after_commit(applies)
        except GateTimeout as exc:
            raise busy(self.label, self.busy_timeout) from exc
        except LockTimeout as exc:
            raise busy(self.label, self.busy_timeout) from exc
        finally:
            # this thread's call reads the version again: its own commit moved it
            versions = call_versions()
            if versions is not None:
                versions.pop(id(self), None)

    def _commit(self, conn: PgConnection) -> None:
        """COMMIT in the same round trip as the write's last statements, by leaving the
        pipeline (its Sync answers the COMMIT; a sync and then leaving would be two round
        trips). A statement that failed raises here, and PostgreSQL skipped the COMMIT queued
        after it. A failure whose error the caller already saw and caught left the transaction
        aborted: the COMMIT queued behind it is skipped as well (the pipeline is aborted), or,
        sent after a sync, answers ROLLBACK; either way nothing was written, and the caller
        is told so."""
        cursor = conn.raw.cursor()
        try:
            cursor.execute("COMMIT", prepare=False)  # see _worth_preparing
            conn.end_pipeline()
        except psycopg.errors.PipelineAborted as exc:
            raise _caught_refusal() from exc
        except psycopg.Error as exc:
            raise mapped(exc) from exc
        if cursor.statusmessage != "COMMIT":
            raise _caught_refusal()

    @contextmanager
    def _pipelined(self, conn: PgConnection) -> Iterator[None]:
        """`conn` in pipeline mode for the block (on Citus not: a SET LOCAL that Citus
        propagates to the worker must go by itself, see citus.run_joined)."""
        if citus.on_citus(conn):
            yield
        else:
            with conn.pipelined():
                yield

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """One REPEATABLE READ transaction on a connection of its own: every statement in it
        reads the same committed state (its BEGIN goes out with the first query)."""
        with self._snapshot_lock, self._checkout() as conn:
            try:
                with self._pipelined(conn):
                    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    yield conn
                    conn.execute("ROLLBACK")  # read only: goes with leaving the pipeline
            finally:
                if conn.raw.info.transaction_status != TransactionStatus.IDLE:
                    conn.raw.execute("ROLLBACK")

    # -- the change record's fast path --------------------------------------------------------

    def data_version(self) -> int:
        """The newest committed seq. Inside this thread's write it cannot move (every writer
        of the schema waits for the gate row this transaction holds), so it is read once per
        write: an entity_create asked it seven times. Outside a write, once per call
        (`one_call`): a resolve asked it four times."""
        holding = self._writer is not None and self.gate.held_by_current_thread
        if holding and self._pinned_version is not None:
            return self._pinned_version
        if holding and self._writer is not None and not self._writer.recorded:
            # The writer holds the gate row, so it reads what is committed as long as it has
            # recorded nothing of its own; the read shares the round trip of what it sent last.
            self._pinned_version = int(self._writer.execute(self._version_sql).fetchone()[0])
            return self._pinned_version
        versions = None if holding else call_versions()
        if versions is not None and id(self) in versions:
            return versions[id(self)]
        # on the schema's path and role: another schema's role may not read its record
        with self._checkout() as conn:
            version = int(conn.execute(self._version_sql).fetchone()[0])
        if holding:
            self._pinned_version = version
        elif versions is not None:
            versions[id(self)] = version
        return version

    def data_version_in(self, conn: Connection) -> int:
        version: int = conn.execute("SELECT coalesce(max(seq), 0) FROM change_record").fetchone()[0]
        return version

    def version_after_commit(self, newest: int) -> int | None:
        """The version is the newest seq."""
        return newest

    def change_bounds_in(self, conn: Connection) -> tuple[int, int, int | None]:
        """The version is the newest seq: one query gives all three."""
        newest, oldest = conn.execute(CHANGE_BOUNDS_SQL).fetchone()
        return newest, newest, oldest

    def changes_since(
        self, conn: Connection, seen: int, kind: str
    ) -> tuple[int, int, int | None, frozenset[str]]:
        """One round trip: the bounds and the refs in one statement, each part on its index
        (the snapshot is REPEATABLE READ, so every part sees the same newest seq)."""
        newest, oldest, refs = conn.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM change_record), "
            "(SELECT min(seq) FROM change_record), "
            "ARRAY(SELECT DISTINCT ref FROM change_record WHERE seq > ? AND kind = ?)",
            (seen, kind),
        ).fetchone()
        return newest, newest, oldest, frozenset(refs)

    # -- what `check` and `status` ask --------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        """PostgreSQL keeps its own pages and foreign keys consistent (no PRAGMA to ask); what
        can go wrong here is a foreign key whose trigger was disabled, so that is checked."""
        with self.read() as conn:
            rows = conn.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND t.tgenabled = 'D'"
            ).fetchall()
        return [f"integrity: trigger {r[1]} on {r[0]} is disabled" for r in rows]

    def analyze(self) -> None:
        """VACUUM (ANALYZE) the schema's tables: until autovacuum gets to a table loaded in
        bulk, PostgreSQL plans it as nearly empty (a search's page-wide statements took 7-10 ms
        instead of 1 right after a load of 5,000 texts). The VACUUM marks the loaded pages
        all-visible and merges the GIN indexes' pending lists, work autovacuum would otherwise
        do during the first reads: resolve p95 right after a load of 100,000 entities was
        4.6-7.1 ms over five runs with it, 5.6-7.6 ms over three with ANALYZE alone, and the
        load took a second longer (bench/backends.py). A refusal is logged, never raised: the
        load it follows has committed."""
        names = self.tables()
        if not names:
            return
        try:
            with self.read() as conn:
                conn.execute("VACUUM (ANALYZE) " + ", ".join(_quoted(name) for name in names))
        except StoreError:
            log.warning("%s: VACUUM (ANALYZE) after a bulk load failed", self.label, exc_info=True)

    def tables(self) -> list[str]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename NOT IN ('migrations', ?) ORDER BY tablename",
                (GATE_TABLE,),
            ).fetchall()
        return [r[0] for r in rows]

    def size_bytes(self) -> int:
        with self.read() as conn:
            row = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
            ).fetchone()
        return int(row[0])

    def close(self) -> None:
        if self._entry is not None:
            self._entry = None
            _release(self.url)
        self._local = threading.local()
