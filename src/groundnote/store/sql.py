"""The connection, row and error types that subsystem code is written against.

Subsystems name these, never a driver's module, so that one body of subsystem code serves
every backend the store implements (SQLite files, PostgreSQL schemas). Each backend's
connection carries its `backend` name, and the few questions whose SQL differs between the
engines (does a table exist, which columns has it) are answered here, so no subsystem needs an
`if sqlite:` of its own.

SQL is written with `?` (or `:name`) placeholders on both backends; the PostgreSQL connection
translates them (store/postgres.py). Both backends raise `IntegrityError` for a refused write
(a constraint, a trigger's RAISE) with the trigger's message as its text, e.g. 'append-only',
and `StoreError` for everything else the engine refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

__all__ = [
    "Backend",
    "Connection",
    "Cursor",
    "IntegrityError",
    "Parameters",
    "Row",
    "StoreError",
    "columns",
    "in_list",
    "table_exists",
]

Backend = Literal["sqlite", "postgresql"]
Parameters = Sequence[Any] | Mapping[str, Any]


class StoreError(Exception):
    """The database refused a statement (on any backend); the engine's error is its cause."""


class IntegrityError(StoreError):
    """A constraint or a trigger refused a write. The text is the trigger's message exactly
    ('append-only', 'version-gap', ...) where one raised it, so `from_backstop` maps it."""


class Row(Protocol):
    """A result row: `row["col"]`, `row[0]`, `dict(row)`, `row.keys()`, iteration."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...


class Cursor(Protocol):
    """What an `execute` answers: its rows (fetched or iterated) and the rows it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A connection of either backend, as the store hands it out in read()/write()/snapshot()."""

    backend: Backend
    #: Inside a write: the kinds of change this transaction recorded so far (store/changes),
    #: so that the unit can bring this process's followers of them up to its COMMIT. None
    #: outside a write.
    recorded: set[str] | None

    def execute(self, sql: str, parameters: Parameters = ..., /) -> Cursor: ...

    def prefetch(self, sql: str, parameters: Parameters = ..., /) -> Cursor:
        """A read whose rows are read later: on PostgreSQL inside a write the statement is sent
        now and its answer comes with the next round trip that waits for one (a later read,
        the COMMIT), so several reads asked one after the other cost one round trip; on SQLite
        its rows are read at once, since a statement left unread (a check refused before it
        was read) would keep its snapshot open. The rows may be read after the write ended."""
        ...

    def executemany(self, sql: str, parameters: Iterable[Parameters], /) -> Cursor: ...

    def insert_rows(
        self, table: str, names: Sequence[str], rows: Sequence[Sequence[Any]], /
    ) -> None:
        """`rows` (each its values in the order of `names`: text, numbers, None) into `table`,
        in order, each row through the table's checks and row triggers as a single INSERT
        would be; PostgreSQL runs the statement triggers once for all of them."""
        ...


def in_list(values: Iterable[Any]) -> tuple[str, list[Any]]:
    """The marks and the parameters of an `IN (…)` over `values`, the list padded to a power of
    two by repeating its last value (which changes no answer, NOT IN included). The
    statement's text then repeats across calls of different sizes, so PostgreSQL keeps a
    prepared plan instead of planning each size anew (0.6 ms of a 6 ms resolve), and SQLite
    its statement cache. An empty list stays empty: `IN ()`; one longer than 1,024 is not
    padded (planning is not what such a statement waits for, and SQLite takes at most 32,766
    parameters)."""
    wanted = list(values)
    if 0 < len(wanted) <= 1024:
        wanted += wanted[-1:] * ((1 << (len(wanted) - 1).bit_length()) - len(wanted))
    return ",".join("?" * len(wanted)), wanted


def table_exists(conn: Connection, name: str) -> bool:
    """Whether the store unit behind `conn` (a file, a schema) has a table or view `name`."""
    if conn.backend == "postgresql":
        sql = (
            "SELECT 1 FROM pg_catalog.pg_class c "
            "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relname = ?"
        )
    else:
        sql = "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?"
    return conn.execute(sql, (name,)).fetchone() is not None


def columns(conn: Connection, table: str) -> list[str]:
    """The columns of `table` in their declared order."""
    if conn.backend == "postgresql":
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return [row[0] for row in rows]
    return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
