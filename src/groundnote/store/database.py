"""One SQLite store file: per-thread readers, one writer behind the FIFO gate.

The MCP SDK runs plain `def` handlers on worker threads, so no connection crosses threads
unguarded: readers are thread-local, and the single writer connection is only touched by
the thread that holds the gate's permit.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from groundnote.domain.cancel import check_before_commit
from groundnote.store.gate import WriteGate

__all__ = ["Database", "connect", "gate_for"]

BUSY_TIMEOUT_MS = 30_000
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


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection with the pragmas every Groundnote file uses; transactions are explicit."""
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # A checkpoint runs inside the COMMIT that crosses the threshold and fsyncs; at SQLite's
    # default of 1,000 pages that was ~0.3 ms of every small write at 100,000 entities.
    # 4,000 pages (16 MB of WAL) checkpoints a quarter as often.
    conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
    return conn


class Database:
    """A store file shared by many subsystems; each reaches its tables through its own module."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.gate = gate_for(path)
        self._local = threading.local()
        self._writer: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
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
        yield self._reader()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (`BEGIN IMMEDIATE`), committed on success, rolled back on error."""
        with self.gate.permit():
            if self._writer is None:
                self._writer = connect(self.path)
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                check_before_commit()  # a call cancelled by now writes nothing
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._local = threading.local()
