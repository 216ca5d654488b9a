"""One SQLite store file: per-thread readers, one writer behind the FIFO gate.

The MCP SDK runs plain `def` handlers on worker threads, so no connection crosses threads
unguarded: readers are thread-local, the single writer connection is only touched by the
thread that holds the gate's permit, and the snapshot connection (the change record's
catch-up, `store.changes`) only under its lock.

Several processes may write one file. Their writers queue in this process's FIFO gate, then
in SQLite's lock (`BEGIN IMMEDIATE`, retried by SQLite's busy handler). Both waits together are
bounded by `busy_timeout` seconds; past it the caller gets `Busy` (503, retry), never SQLite's
`database is locked`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from groundnote.domain.cancel import check_before_commit
from groundnote.domain.errors import Busy
from groundnote.store.gate import GateTimeout, WriteGate

__all__ = ["DEFAULT_BUSY_TIMEOUT", "Database", "connect", "gate_for"]

DEFAULT_BUSY_TIMEOUT = 10.0
WAL_AUTOCHECKPOINT_PAGES = 4000

_GATES: dict[str, WriteGate] = {}
_GATES_LOCK = threading.Lock()


def gate_for(path: Path) -> WriteGate:
    """The one FIFO gate of a store file in this process, shared by every handle on it.

    A file may get several handles (a projection opens a fresh one after deleting the file to
    rebuild it); their writers must still queue at one permit, in arrival order.
    """
    key = str(path.resolve())
    with _GATES_LOCK:
        gate = _GATES.get(key)
        if gate is None:
            gate = _GATES[key] = WriteGate(key)
        return gate


def connect(path: Path | str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> sqlite3.Connection:
    """A connection with the pragmas every Groundnote file uses; transactions are explicit."""
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout
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


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """SQLite's answer when another connection held the lock past the busy timeout."""
    text = str(exc)
    return "database is locked" in text or "database is busy" in text


def busy(path: Path, waited: float) -> Busy:
    return Busy(
        f"The store file {path.name} was busy with other writers for longer than "
        f"{waited:g} s; nothing was written.",
        limit=waited,
    )


class Database:
    """A store file shared by many subsystems; each reaches its tables through its own module."""

    def __init__(self, path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.gate = gate_for(path)
        self._local = threading.local()
        self._writer: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._snapshot_lock = threading.Lock()
        self._snapshot: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path, self.busy_timeout)

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads. Inside `write()` it is the writer, so a writer sees its own rows."""
        if self.gate.held_by_current_thread and self._writer is not None:
            yield self._writer
            return
        try:
            yield self._reader()
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise busy(self.path, self.busy_timeout) from exc
            raise

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
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
                try:
                    yield conn
                    check_before_commit()  # a call cancelled by now writes nothing
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        except GateTimeout as exc:
            raise busy(self.path, self.busy_timeout) from exc
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise busy(self.path, self.busy_timeout) from exc
            raise

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
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
                    yield conn
                finally:
                    conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if is_busy(exc):
                    raise busy(self.path, self.busy_timeout) from exc
                raise

    def data_version(self) -> int:
        """SQLite's `PRAGMA data_version` on the snapshot connection: it changes only when
        another connection committed since that connection last looked."""
        with self._snapshot_lock:
            if self._snapshot is None:
                self._snapshot = self._connect()
            version: int = self._snapshot.execute("PRAGMA data_version").fetchone()[0]
            return version

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
