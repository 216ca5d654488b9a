"""The name vectors of a scope: a projection of its entities' current names and aliases
(`entity_vector`), the last tier of entity_resolve (graph/semantic_tier.py).

One row per (entity, text), embedded by the search embedder (embedding/). Names change, unlike
rules, so the projection follows entity_current: an entity's row set is pending when its
current texts differ from the texts that have a vector (a rename, a new alias). Embedding is lazy and bounded, as for the text vectors of search:
a resolve that needs the tier first embeds at most `CATCH_UP_MAX` pending entities, never a
write of the graph (entity_create keeps its rate); `rebuild_name_vectors` embeds all.

Coherence across processes and servers goes through the change record only: every write of
entity_vector records the entity's seq under `CHANGE_KIND` in its transaction, and a process
learns which entities' texts changed from the `entity_fts` rows that graph/fts.py records. A
process's copy (`NameVectors`) catches up from both before it answers, on its own snapshot.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Iterable, Sequence

import numpy as np

from groundnote.domain.progress import Progress
from groundnote.embedding import Embedder
from groundnote.embedding.base import Matrix, Vector
from groundnote.embedding.matrix import VectorRows
from groundnote.embedding.per_model import PerModel
from groundnote.graph.trigram import CHANGE_KIND as TEXTS_CHANGED
from groundnote.store import Database
from groundnote.store import changes as change_record
from groundnote.store.changes import Watch
from groundnote.store.sql import Connection

__all__ = [
    "CATCH_UP_MAX",
    "CHANGE_KIND",
    "NameVectors",
    "name_vector_drift",
    "name_vectors",
    "rebuild_name_vectors",
]

CHANGE_KIND = "entity_vector"
# A resolve miss embeds at most this many pending entities before it answers (a name takes
# ~30 ms with the local model on a loaded 2-core machine); the rest follow on later misses.
CATCH_UP_MAX = 16
BATCH = 64
# SQLite allows 32,766 host parameters.
_READ_BATCH = 5000

# Every entity, archived ones too, as in entity_fts: an archive writes no entity_fts row and so
# no change record, and resolve leaves archived entities out when it reads their rows.
_CURRENT_SQL = "SELECT e.seq, k.name, k.aliases FROM entity e JOIN entity_current k ON k.id = e.id"


def _texts(name: str, aliases: str) -> frozenset[str]:
    return frozenset([name, *json.loads(aliases)])


def _current(conn: Connection, seqs: Sequence[int] | None) -> dict[int, frozenset[str]]:
    """The current texts of these entities (all when None)."""
    if seqs is None:
        return {int(r[0]): _texts(r[1], r[2]) for r in conn.execute(_CURRENT_SQL)}
    found: dict[int, frozenset[str]] = {}
    for start in range(0, len(seqs), _READ_BATCH):
        part = list(seqs[start : start + _READ_BATCH])
        marks = ",".join("?" * len(part))
        for r in conn.execute(f"{_CURRENT_SQL} WHERE e.seq IN ({marks})", part):
            found[int(r[0])] = _texts(r[1], r[2])
    return found


def _write(
    conn: Connection, model: str, embedded: dict[tuple[int, str], Vector], seqs: Iterable[int]
) -> None:
    """Make the rows of `seqs` the vectors of their current texts (read here, inside the write,
    so a rename committed meanwhile is never undone), and record each entity."""
    wanted = sorted(set(seqs))
    now = _current(conn, wanted)
    held: dict[int, set[str]] = {}
    for start in range(0, len(wanted), _READ_BATCH):
        part = wanted[start : start + _READ_BATCH]
        marks = ",".join("?" * len(part))
        for seq, text, of in conn.execute(
            f"SELECT seq, text, model FROM entity_vector WHERE seq IN ({marks})", part
        ):
            if of == model:
                held.setdefault(int(seq), set()).add(str(text))
            else:
                conn.execute("DELETE FROM entity_vector WHERE seq = ? AND text = ?", (seq, text))
    for seq in wanted:
        texts = now.get(seq, frozenset())
        for gone in held.get(seq, set()) - texts:
            conn.execute("DELETE FROM entity_vector WHERE seq = ? AND text = ?", (seq, gone))
        rows = [
            (seq, text, model, len(row), np.asarray(row, dtype="<f4").tobytes())
            for text in sorted(texts - held.get(seq, set()))
            if (row := embedded.get((seq, text))) is not None
        ]
        conn.executemany(
            "INSERT INTO entity_vector (seq, text, model, dim, vector) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (seq, text) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
            "vector = excluded.vector",
            rows,
        )
        # Other processes and servers learn of the rows only from the change record.
        change_record.record(conn, CHANGE_KIND, str(seq))


class NameVectors:
    """One process's copy of a scope's name vectors of one model; thread-safe."""

    def __init__(self, db: Database, embedder: Embedder) -> None:
        self._db = weakref.ref(db)
        self._embedder = embedder
        self._watch = Watch(db)
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._rows = VectorRows(self._embedder.dimension)
        self._slots: dict[tuple[int, str], int] = {}
        self._held: dict[int, set[str]] = {}  # seq → its texts with a vector here
        self._text_of: dict[int, tuple[int, str]] = {}  # slot → (seq, text)
        self._pending: set[int] = set()

    def _database(self) -> Database:
        db = self._db()
        if db is None:
            raise RuntimeError("the store file of these name vectors was closed and released")
        return db

    @property
    def pending(self) -> int:
        """How many entities lack the vectors of their current texts."""
        with self._lock:
            self._refresh()
            return len(self._pending)

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._rows)

    def catch_up(self, limit: int | None = CATCH_UP_MAX, progress: Progress | None = None) -> int:
        """Embed the texts of up to `limit` pending entities (all when None) and write them;
        how many texts were embedded."""
        db = self._database()
        with self._lock:
            self._refresh()
            chosen = sorted(self._pending)
        if limit is not None:
            chosen = chosen[:limit]
        if not chosen:
            return 0
        done = 0
        for start in range(0, len(chosen), BATCH):
            part = chosen[start : start + BATCH]
            with db.read() as conn:
                texts = _current(conn, part)
            with self._lock:
                wanted = [
                    (seq, text)
                    for seq in part
                    for text in sorted(texts.get(seq, frozenset()) - self._held.get(seq, set()))
                ]
            rows: Matrix = (
                self._embedder.passages([text for _, text in wanted])
                if wanted
                else np.zeros((0, 1), dtype=np.float32)
            )
            with db.write() as conn:
                _write(conn, self._embedder.model_id, dict(zip(wanted, rows, strict=True)), part)
            done += len(wanted)
            if progress is not None:
                progress("embed names", start + len(part), len(chosen))
        return done

    def nearest(self, query: Vector, k: int, floor: float) -> list[tuple[int, str, float]]:
        """(seq, text, similarity) of the `k` entities nearest to `query` from `floor` on,
        each by its nearest text, best first."""
        with self._lock:
            self._refresh()
            # An entity holds a few texts: read enough slots that `k` entities remain.
            found = self._rows.nearest(query, 4 * k, floor)
            best: dict[int, tuple[int, str, float]] = {}
            for slot, seq, score in found:
                if seq not in best:
                    best[seq] = (seq, self._text_of[slot][1], score)
            return list(best.values())[:k]

    def _refresh(self) -> None:
        """Catch up with what was committed since the last look (under the lock)."""
        if not self._watch.moved():
            return
        with self._watch.snapshot() as conn:
            texts = self._watch.since(conn, TEXTS_CHANGED)
            vectors = self._watch.since(conn, CHANGE_KIND)
            if texts.everything or vectors.everything:
                self._reset()
                self._load(conn, None)
                self._compare(conn, None)
            else:
                touched = sorted({int(ref) for ref in vectors.refs})
                if touched:
                    self._load(conn, touched)
                changed = sorted(set(touched) | {int(ref) for ref in texts.refs})
                if changed:
                    self._compare(conn, changed)
            self._watch.advance(vectors)

    def _load(self, conn: Connection, seqs: list[int] | None) -> None:
        """Re-read the vectors of these entities (all when None) of the model."""
        model, dim = self._embedder.model_id, self._embedder.dimension
        if seqs is None:
            batches: list[list[int] | None] = [None]
        else:
            batches = [seqs[i : i + _READ_BATCH] for i in range(0, len(seqs), _READ_BATCH)]
        for part in batches:
            where = ""
            params: list[object] = [model]
            if part is not None:
                for seq in part:
                    self._drop(seq)
                where = f" AND seq IN ({','.join('?' * len(part))})"
                params += part
            for seq, text, blob in conn.execute(
                f"SELECT seq, text, vector FROM entity_vector WHERE model = ?{where}", params
            ):
                row = np.frombuffer(blob, dtype="<f4")
                if len(row) == dim:
                    self._add(int(seq), str(text), row)

    def _add(self, seq: int, text: str, row: Vector) -> None:
        slot = self._rows.add(seq, row)
        self._slots[seq, text] = slot
        self._text_of[slot] = (seq, text)
        self._held.setdefault(seq, set()).add(text)

    def _drop(self, seq: int) -> None:
        for text in self._held.pop(seq, set()):
            slot = self._slots.pop((seq, text))
            del self._text_of[slot]
            self._rows.free(slot)

    def _compare(self, conn: Connection, seqs: list[int] | None) -> None:
        """Mark pending the entities whose current texts differ from those with a vector."""
        now = _current(conn, seqs)
        for seq in (now.keys() | self._held.keys()) if seqs is None else seqs:
            if now.get(seq, frozenset()) == self._held.get(seq, set()):
                self._pending.discard(seq)
            else:
                self._pending.add(seq)


_INDEXES: PerModel[Database, NameVectors] = PerModel(NameVectors)


def name_vectors(db: Database, embedder: Embedder) -> NameVectors:
    """The process's name vectors of `db` for `embedder`'s model, made on first use."""
    return _INDEXES.get(db, embedder)


def rebuild_name_vectors(db: Database, embedder: Embedder, progress: Progress | None = None) -> int:
    """Embed every current name and alias again and drop every other row; how many texts."""
    with db.write() as conn:
        conn.execute("DELETE FROM entity_vector")
        change_record.record(conn, CHANGE_KIND, change_record.EVERYTHING)
    return name_vectors(db, embedder).catch_up(limit=None, progress=progress)


def name_vector_drift(db: Database, embedder: Embedder, scope: str) -> list[str]:
    """How `entity_vector` differs from a rebuild with `embedder` (none: equal): every current
    text has a vector of the model and of its dimension, and no row belongs to another text."""
    remedy = f"run `groundnote rebuild vectors --scope {scope}`"
    model, dim = embedder.model_id, embedder.dimension
    with db.read() as conn:
        now = _current(conn, None)
        rows = conn.execute("SELECT seq, text, model, dim FROM entity_vector").fetchall()
    held = {(int(r[0]), str(r[1])) for r in rows if r[2] == model and r[3] == dim}
    wanted = {(seq, text) for seq, texts in now.items() for text in texts}
    problems = []
    if lacking := len(wanted - held):
        problems.append(f"{lacking} entity names lack a vector of {model}; {remedy}")
    if stale := len({(int(r[0]), str(r[1])) for r in rows} - wanted):
        problems.append(f"{stale} entity vectors belong to no current name or alias; {remedy}")
    if other := sum(1 for r in rows if r[2] != model or r[3] != dim):
        problems.append(
            f"{other} entity vectors are not of {model} with {dim} dimensions; {remedy}"
        )
    return problems
