"""One SQLite store file: per-thread readers, one writer behind the FIFO gate.

The MCP SDK runs plain `def` handlers on worker threads, so no connection crosses threads
unguarded: readers are thread-local, the single writer connection is only touched by the
thread that holds the gate's permit, and the snapshot connection (the change record's
catch-up, `store.changes`) only under its lock.

Several processes may write one file. Their writers queue in this process's FIFO gate, then
in SQLite's lock (`BEGIN IMMEDIATE`, retried by SQLite's busy handler). Both waits together are
bounded by `busy_timeout` seconds; past it the caller gets `Busy` (503, retry), never SQLite's
`database is locked`.

The connections raise the store's own `IntegrityError` and `StoreError` (store/sql.py), the
same classes the PostgreSQL backend raises, with SQLite's message as their text.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from groundnote.domain.cancel import check_before_commit
from groundnote.store.database import DEFAULT_BUSY_TIMEOUT, Database, busy, gate_for
from groundnote.store.gate import GateTimeout
from groundnote.store.sql import Backend, Connection, Cursor, IntegrityError, StoreError

__all__ = ["SqliteConnection", "SqliteDatabase", "connect"]

WAL_AUTOCHECKPOINT_PAGES = 4000


def mapped(exc: sqlite3.Error) -> StoreError:
    """SQLite's error as the store's: IntegrityError for a refused write, else StoreError."""
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError(str(exc))
    return StoreError(str(exc))


class SqliteConnection(sqlite3.Connection):
    """sqlite3's connection, raising the store's error types."""

    backend: Backend = "sqlite"
    recorded: set[str] | None = None

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise mapped(exc) from exc

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.Error as exc:
            raise mapped(exc) from exc

    def prefetch(self, sql: str, parameters: Any = (), /) -> Cursor:
        cursor = self.execute(sql, parameters)
        with _store_errors():
            return _Fetched(cursor.fetchall(), cursor.rowcount)

    def insert_rows(
        self, table: str, names: Sequence[str], rows: Sequence[Sequence[Any]], /
    ) -> None:
        # SQLite has row triggers only, and a prepared INSERT per row costs it no round trip.
        marks = ", ".join("?" for _ in names)
        self.executemany(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", rows)


class _Fetched:
    """A statement's rows read at once (`prefetch`), answered as its cursor would."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Any]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


def connect(path: Path | str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> SqliteConnection:
    """A connection with the pragmas every Groundnote file uses; transactions are explicit."""
    conn = sqlite3.connect(
        str(path),
        isolation_level=None,
        check_same_thread=False,
        timeout=busy_timeout,
        factory=SqliteConnection,
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    # A checkpoint runs inside the COMMIT that crosses the threshold and fsyncs; at SQLite's
    # default of 1,000 pages that was ~0.3 ms of every small write at 100,000 entities.
    # 4,000 pages (16 MB of WAL) checkpoints a quarter as often.
    conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
    return conn


def is_busy(exc: BaseException) -> bool:
    """SQLite's answer when another connection held the lock past the busy timeout."""
    if not isinstance(exc, sqlite3.OperationalError | StoreError):
        return False
    text = str(exc)
    return "database is locked" in text or "database is busy" in text


@contextmanager
def _store_errors() -> Iterator[None]:
    """A statement's error raised while its rows were read (after `execute`) as the store's."""
    try:
        yield
    except sqlite3.Error as exc:
        raise mapped(exc) from exc


class SqliteDatabase(Database):
    """A store file shared by many subsystems; each reaches its tables through its own module."""

    backend: Backend = "sqlite"

    def __init__(self, path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        super().__init__()
        self.path = path
        self.label = f"file {path.name}"
        self.busy_timeout = busy_timeout
        self.gate = gate_for(str(path.resolve()), str(path.resolve()))
        self._local = threading.local()
        self._writer: SqliteConnection | None = None
        self._lock = threading.Lock()
        self._all: list[SqliteConnection] = []
        self._snapshot_lock = threading.Lock()
        self._snapshot: SqliteConnection | None = None

    def _connect(self) -> SqliteConnection:
        return connect(self.path, self.busy_timeout)

    def _reader(self) -> SqliteConnection:
        conn: SqliteConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads. Inside `write()` it is the writer, so a writer sees its own rows."""
        if self.gate.held_by_current_thread and self._writer is not None:
            yield self._writer
            return
        try:
            with _store_errors():
                yield self._reader()
        except StoreError as exc:
            if is_busy(exc):
                raise busy(self.label, self.busy_timeout) from exc
            raise

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction (`BEGIN IMMEDIATE`), committed on success, rolled back on error.

        Waiting for the gate and then for SQLite's lock share one deadline, `busy_timeout`
        from now; past it the caller gets `Busy`.
        """
        deadline = time.monotonic() + self.busy_timeout
        try:
            with self.gate.permit(self.busy_timeout):
                if self._writer is None:
                    self._writer = self._connect()
                conn = self._writer
                left_ms = max(1, int((deadline - time.monotonic()) * 1000))
                conn.execute(f"PRAGMA busy_timeout={left_ms}")
                conn.execute("BEGIN IMMEDIATE")
                conn.recorded = set()
                try:
                    with _store_errors():
                        yield conn
                        check_before_commit()  # a call cancelled by now writes nothing
                        applies = self._before_commit(conn)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                finally:
                    conn.recorded = None
                conn.execute("COMMIT")
                self._after_commit(applies)
        except GateTimeout as exc:
            raise busy(self.label, self.busy_timeout) from exc
        except StoreError as exc:
            if is_busy(exc):
                raise busy(self.label, self.busy_timeout) from exc
            raise

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """One read transaction on a connection of its own, for catching up derived state:
        never the writer (it would show uncommitted rows) and never a thread's reader (which
        may be inside a statement of its caller)."""
        with self._snapshot_lock:
            if self._snapshot is None:
                self._snapshot = self._connect()
            conn = self._snapshot
            try:
                conn.execute("BEGIN")
                try:
                    with _store_errors():
                        yield conn
                finally:
                    conn.execute("COMMIT")
            except StoreError as exc:
                if is_busy(exc):
                    raise busy(self.label, self.busy_timeout) from exc
                raise

    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version` on the snapshot connection: it changes only when
        another connection committed since that connection last looked."""
        with self._snapshot_lock:
            if self._snapshot is None:
                self._snapshot = self._connect()
            return self.data_version_in(self._snapshot)

    def data_version_in(self, conn: Connection) -> int:
        version: int = conn.execute("PRAGMA data_version").fetchone()[0]
        return version

    def version_after_commit(self, newest: int) -> int | None:
        """Unknown: `PRAGMA data_version` on the snapshot connection moves with this process's
        own commit by an amount only that connection can tell, and asking it after the
        COMMIT could already count another process's commit."""
        return None

    def integrity_problems(self) -> list[str]:
        with self.read() as conn:
            problems = [
                f"integrity: {r[0]}" for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"
            ]
            problems += [
                f"foreign key: {r[0]} row {r[1]} points at a missing {r[2]}"
                for r in conn.execute("PRAGMA foreign_key_check")
            ]
        return problems

    def analyze(self) -> None:
        """Nothing: SQLite plans Groundnote's statements by their indexes and keeps no
        statistics unless asked, and asking could move plans that are measured as they are."""

    def tables(self) -> list[str]:
        """Tables and virtual tables; FTS shadow tables and the ledger left out."""
        with self.read() as conn:
            return sorted(
                row["name"]
                for row in conn.execute("PRAGMA table_list")
                if row["schema"] == "main"
                and row["type"] in ("table", "virtual")
                and not row["name"].startswith("sqlite_")
                and row["name"] != "migrations"
            )

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            path = self.path.with_name(self.path.name + suffix)
            if path.exists():
                total += path.stat().st_size
        return total

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        with self._snapshot_lock:
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
        self._local = threading.local()
