"""The change record: how every process on a home learns what other processes committed.

Several processes share one home (`serve`, a desktop client's `groundnote mcp`, the command
line), and each holds state derived from the store in memory (the resolve index). A writer
adds a row `(seq, kind, ref)` to the file's `change_record` inside its write transaction, so
the row commits exactly when the change does; a reader of derived state first asks for the
rows after the last seq it has seen and re-reads only what they name. The cost is one cheap
query when nothing changed and O(changed) otherwise, never a rebuild.

The signal is a table in the store file itself, not a pipe, a file lock or an in-process
event, so the same protocol keeps several app servers coherent on PostgreSQL, where the rows
live in the scope's schema. The unit's `data_version()` adds a fast path: on SQLite `PRAGMA
data_version`, which only changes when another connection has committed, so an unchanged value
skips even the query; on PostgreSQL the newest seq of the record, read from the database (never
a node-local signal such as LISTEN/NOTIFY), one cheap indexed query.

A consumer (one per process and store file) keeps a `Watch` and, under its own lock:

    with watch.snapshot() as conn:           # one read transaction: rows and data agree
        caught = watch.since(conn, "entity_fts")
        ...re-read caught.refs, or everything when caught.everything...
        watch.advance(caught)

Writers call `record(conn, kind, ref)`; `ref` "*" says "everything of this kind changed" (a
rebuild of the projection). Rows beyond the newest 100,000 are pruned by a trigger; a consumer
that fell further behind sees the gap and is told to re-read everything.

A consumer that follows its store unit (`Database.follow`) takes in this process's own writes
without a catch-up of its own: just before the write's COMMIT, `watch.ahead(conn, kind)` asks
the writer, which holds the unit's write lock and so sees exactly what is about to commit, for
the rows after `seen`; after the COMMIT the consumer applies them and advances to it.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from groundnote.store.database import CHANGE_BOUNDS_SQL, Database
from groundnote.store.home import Subsystem
from groundnote.store.migrations import load_migrations
from groundnote.store.sql import Connection, Cursor

__all__ = ["EVERYTHING", "SUBSYSTEM", "Ahead", "Caught", "Watch", "latest", "record"]

SUBSYSTEM = Subsystem("changes", load_migrations("groundnote.store.changes", "changes"))

EVERYTHING = "*"


def record(conn: Connection, kind: str, ref: str) -> None:
    """Note inside the write transaction that `ref` of `kind` changed (EVERYTHING: all of it)."""
    conn.execute(
        "INSERT INTO change_record (seq, kind, ref) "
        "SELECT coalesce(max(seq), 0) + 1, ?, ? FROM change_record",
        (kind, ref),
    )
    if conn.recorded is not None:  # a store unit's write: its COMMIT brings the followers up
        conn.recorded.add(kind)


def latest(conn: Connection) -> int:
    """The newest seq of the record in this connection's snapshot (0 for none)."""
    seq: int = conn.execute("SELECT coalesce(max(seq), 0) FROM change_record").fetchone()[0]
    return seq


@dataclass(frozen=True)
class Caught:
    """What changed after a consumer's last seq, up to `seq`, for one kind."""

    seq: int
    refs: frozenset[str]
    everything: bool  # re-read all: a rebuild was recorded, or the record was pruned past


class Watch:
    """One consumer's place in a store file's change record; not thread-safe by itself (the
    consumer calls it under its own lock)."""

    def __init__(self, db: Database) -> None:
        # Weak, like the consumer's own reference: a registry keyed weakly by the Database
        # must not be kept alive by its value.
        self._ref = weakref.ref(db)
        self.seen: int | None = None  # None until the consumer first read the data
        self._version: int | None = None

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """One read transaction on the file's private snapshot connection: the change rows and
        the data read in it come from the same committed state."""
        with self._database().snapshot() as conn:
            yield conn

    def moved(self) -> bool:
        """Whether anything may have been committed since the consumer last caught up."""
        if self.seen is None:
            return True
        return self._database().data_version() != self._version

    def since(self, conn: Connection, kind: str) -> Caught:
        """The refs of `kind` changed after `seen`, read in the snapshot `conn`."""
        # Inside the snapshot the version is the snapshot's: a commit after it changes the
        # value `moved` sees, so it is caught up on the next read, never missed.
        seen = self.seen
        if seen is None:
            self._version, newest, _ = self._database().change_bounds_in(conn)
            return Caught(newest, frozenset(), everything=True)
        self._version, newest, oldest, refs = self._database().changes_since(conn, seen, kind)
        if newest == seen:
            return Caught(newest, frozenset(), everything=False)
        if oldest is None or seen < oldest - 1 or newest < seen:
            # Pruned past what we saw, or a file replaced under us: the rows cannot tell.
            return Caught(newest, frozenset(), everything=True)
        return Caught(newest, refs - {EVERYTHING}, everything=EVERYTHING in refs)

    def _database(self) -> Database:
        db = self._ref()
        if db is None:
            raise RuntimeError("the store file of this watch was closed and released")
        return db

    def advance(self, caught: Caught) -> None:
        """The consumer now reflects everything up to `caught.seq`."""
        self.seen = caught.seq

    def ahead(self, conn: Connection, kind: str) -> Ahead | None:
        """Inside a write, just before its COMMIT (a follower's `before_commit`): ask the
        writer for the changes of `kind` after `seen`. The writer holds the unit's write lock,
        so what it reads is exactly what its COMMIT leaves committed; the reads share the
        COMMIT's round trip. None when the consumer has not read the data yet."""
        seen = self.seen
        if seen is None:
            return None
        # The bounds on every row, with a ref or none: one statement.
        rows = conn.prefetch(
            f"SELECT b.newest, b.oldest, c.ref FROM ({CHANGE_BOUNDS_SQL}) b LEFT JOIN (SELECT "
            "DISTINCT ref FROM change_record WHERE seq > ? AND kind = ?) c ON 1 = 1",
            (seen, kind),
        )
        return Ahead(self, seen, rows)

    def advance_to_commit(self, caught: Caught) -> None:
        """The consumer now reflects everything up to this process's own commit at
        `caught.seq` (from `Ahead.caught`)."""
        self.seen = caught.seq
        self._version = self._database().version_after_commit(caught.seq)

    def forget(self) -> None:
        """The consumer dropped its state; the next catch-up re-reads everything."""
        self.seen = None
        self._version = None


@dataclass(frozen=True)
class Ahead:
    """The changes a writer read just before its COMMIT (`Watch.ahead`)."""

    watch: Watch
    seen: int
    _rows: Cursor

    def caught(self) -> Caught | None:
        """After the COMMIT, under the consumer's lock: what changed after `seen` up to that
        commit. None when the consumer moved meanwhile (another thread caught it up) or has to
        re-read everything; its next read then catches up as usual."""
        rows = self._rows.fetchall()
        newest, oldest = rows[0][0], rows[0][1]
        refs = frozenset(row[2] for row in rows if row[2] is not None)
        if self.watch.seen != self.seen or EVERYTHING in refs:
            return None
        if oldest is None or self.seen < oldest - 1 or newest < self.seen:
            return None
        return Caught(newest, refs, everything=False)
