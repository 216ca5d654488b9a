"""The store unit every subsystem writes through: one SQLite file or one PostgreSQL schema.

Both backends give the same three ways in, with the same meaning:

* `read()`: a connection for reads (autocommit; inside `write()` on the same unit and thread,
  the writer itself, so a writer sees its own rows);
* `write()`: one write transaction behind this process's FIFO gate (seed 002) and the
  backend's own lock, which holds across processes (SQLite's file lock; on PostgreSQL a row
  lock on the schema's gate row, which holds across servers). Waiting for both shares one
  deadline, `busy_timeout`; past it the caller gets `Busy` (503, retry). Committed on success,
  rolled back on error or cancellation;
* `snapshot()`: one read transaction on a connection of its own, for catching derived state
  up (store/changes).

`data_version()` and `data_version_in(conn)` are the change record's fast path: a number that
moves whenever another writer may have committed a recorded change. Inside `one_call()` a unit
may answer it from what it read earlier in the same call (see there).

A process's state derived from the change record (the resolve index) `follow`s the unit: a
write of this process that recorded a followed kind brings the follower up to its own COMMIT
with reads sent just before it, in the same round trip, instead of a catch-up after it.
"""

from __future__ import annotations

import logging
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from groundnote.domain.errors import Busy
from groundnote.store.gate import WriteGate
from groundnote.store.sql import Backend, Connection

__all__ = [
    "CHANGE_BOUNDS_SQL",
    "DEFAULT_BUSY_TIMEOUT",
    "Apply",
    "Database",
    "Follower",
    "busy",
    "call_versions",
    "gate_for",
    "one_call",
]

log = logging.getLogger(__name__)

DEFAULT_BUSY_TIMEOUT = 10.0

_GATES: dict[str, WriteGate] = {}
_GATES_LOCK = threading.Lock()


def gate_for(key: str, name: str) -> WriteGate:
    """The one FIFO gate of a store unit in this process, shared by every handle on it.

    A unit may get several handles (a projection opens a fresh one after deleting the file to
    rebuild it; `check` opens its own); their writers must still queue at one permit, in
    arrival order. `key` identifies the unit, `name` is what messages call it.
    """
    with _GATES_LOCK:
        gate = _GATES.get(key)
        if gate is None:
            gate = _GATES[key] = WriteGate(name)
        return gate


_CALL = threading.local()


@contextmanager
def one_call() -> Iterator[None]:
    """The block is one capability call: a unit whose data version costs a round trip
    (PostgreSQL) reads it once in the block and answers later asks from that, until this
    thread commits a write to the unit. A call that starts after a commit acknowledged
    anywhere still sees it; what another process commits while the call runs is seen by the
    next call, as if it had committed just after this one began. Nested blocks are one call."""
    if getattr(_CALL, "versions", None) is not None:
        yield
        return
    _CALL.versions = {}
    try:
        yield
    finally:
        _CALL.versions = None


def call_versions() -> dict[int, int] | None:
    """The data versions read in this thread's call so far, by `id()` of their unit (None
    outside `one_call()`)."""
    versions: dict[int, int] | None = getattr(_CALL, "versions", None)
    return versions


def busy(label: str, waited: float) -> Busy:
    return Busy(
        f"The store {label} was busy with other writers for longer than "
        f"{waited:g} s; nothing was written.",
        limit=waited,
    )


#: What a follower does once the COMMIT it read ahead of has succeeded.
Apply = Callable[[], None]

#: The newest seq of the change record (0 when empty) and its oldest (NULL). Two scalar
#: subqueries, because SQLite answers max() or min() alone from the key's ends but scans the
#: table for both in one SELECT: 7 ms at the 100,000 rows a busy record keeps, paid by every
#: catch-up and by every write a resolve index follows (bench/graph.py's creates at 100,000
#: entities: 45 per second, 223 with the bounds read from the key).
CHANGE_BOUNDS_SQL = (
    "SELECT (SELECT coalesce(max(seq), 0) FROM change_record) AS newest, "
    "(SELECT min(seq) FROM change_record) AS oldest"
)


class Follower(Protocol):
    """State of this process derived from one kind of change (see `Database.follow`)."""

    def before_commit(self, conn: Connection) -> Apply | None:
        """Just before the COMMIT of a write that recorded the followed kind, with the write's
        connection: send the reads (`conn.prefetch`) that bring the state up to what commits,
        and return what applies them once the COMMIT succeeded (None: nothing to do, the next
        read catches up as usual). Nothing may be written here."""
        ...


class Database(ABC):
    """A store unit shared by many subsystems; each reaches its tables through its own module."""

    backend: Backend
    #: What messages call this unit: `file sales.db`, `schema scope_sales`.
    label: str
    busy_timeout: float
    gate: WriteGate

    def __init__(self) -> None:
        self._followers: list[tuple[str, weakref.ref[Follower]]] = []
        self._followers_lock = threading.Lock()

    def follow(self, kind: str, follower: Follower) -> None:
        """Bring `follower` up to every COMMIT of this process that recorded a change of
        `kind` (held weakly: a follower that is gone is forgotten)."""
        with self._followers_lock:
            self._followers = [(k, ref) for k, ref in self._followers if ref() is not None]
            self._followers.append((kind, weakref.ref(follower)))

    def _before_commit(self, conn: Connection) -> list[Apply]:
        """The followers' reads ahead of this write's COMMIT; what to apply after it."""
        recorded = conn.recorded
        if not recorded:
            return []
        applies = []
        for kind, ref in self._followers:
            follower = ref()
            if follower is not None and kind in recorded:
                apply = follower.before_commit(conn)
                if apply is not None:
                    applies.append(apply)
        return applies

    def _after_commit(self, applies: list[Apply]) -> None:
        """Apply what the followers read ahead. The write has committed and is answered as
        such: a follower that fails here is logged, and it must have reset itself, so that
        its next read rebuilds it from the store."""
        for apply in applies:
            try:
                apply()
            except Exception:
                log.exception("%s: a follower failed to take in a committed write", self.label)

    @abstractmethod
    def version_after_commit(self, newest: int) -> int | None:
        """`data_version()` right after this process committed a write that left the change
        record's newest seq at `newest`, where the backend can tell it without asking (None:
        the follower asks on its next read)."""

    @abstractmethod
    def read(self) -> AbstractContextManager[Connection]:
        """A connection for reads; inside `write()` in this thread, the writer."""

    @abstractmethod
    def write(self) -> AbstractContextManager[Connection]:
        """One write transaction, committed on success and rolled back on error."""

    def append(self) -> AbstractContextManager[Connection]:
        """A connection for a statement that only adds a row no id, seq or change of this unit
        derives from (the operation log row of a read), committed when it has run. Here a
        write like any other; PostgreSQL commits it outside the gate row."""
        return self.write()

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[Connection]:
        """One read transaction on a private connection: never the writer, never a reader."""

    @abstractmethod
    def data_version(self) -> int:
        """A number that changes when another writer may have committed a recorded change."""

    @abstractmethod
    def data_version_in(self, conn: Connection) -> int:
        """The same number as seen inside the snapshot `conn`."""

    def change_bounds_in(self, conn: Connection) -> tuple[int, int, int | None]:
        """In the snapshot `conn`: `data_version_in`, then the newest and the oldest seq of the
        change record (0 and None when it is empty). The version is read first: a commit in
        between then only makes the caller catch up once more, never miss it."""
        version = self.data_version_in(conn)
        newest, oldest = conn.execute(CHANGE_BOUNDS_SQL).fetchone()
        return version, newest, oldest

    def changes_since(
        self, conn: Connection, seen: int, kind: str
    ) -> tuple[int, int, int | None, frozenset[str]]:
        """In the snapshot `conn`: `change_bounds_in`, and the distinct refs of `kind`
        recorded after `seen` (up to the newest, the snapshot's own)."""
        version, newest, oldest = self.change_bounds_in(conn)
        if newest <= seen:
            return version, newest, oldest, frozenset()
        refs = frozenset(
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT ref FROM change_record WHERE seq > ? AND seq <= ? AND kind = ?",
                (seen, newest, kind),
            )
        )
        return version, newest, oldest, refs

    @abstractmethod
    def integrity_problems(self) -> list[str]:
        """The engine's own check of the unit's storage and its foreign keys."""

    @abstractmethod
    def analyze(self) -> None:
        """Refresh the planner's statistics after a bulk load (an import, a migrate), so that
        the next reads are planned for the rows now there; PostgreSQL also vacuums the loaded
        tables then, so that autovacuum does not do it during those reads."""

    @abstractmethod
    def tables(self) -> list[str]:
        """The unit's tables (virtual ones included), its own bookkeeping left out."""

    @abstractmethod
    def size_bytes(self) -> int:
        """What the unit takes on disk."""

    @abstractmethod
    def close(self) -> None:
        """Release every connection; the handle may be opened again by its next use."""
