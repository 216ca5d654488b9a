"""The vectors of a scope: a projection of its rule statements and source texts (`text_vector`).

Rules and sources never change, so a text's vector is written once; it is caught up lazily:
before a search embeds the query, the texts committed since the process last looked (rule and
source seqs above its high-water mark) are embedded and written, whichever process wrote the
texts. That covers every way a text arrives (propose, store, import, transfer) without putting
a model call into their write transactions; bulk writers (mail import) call `catch_up` with a
progress bar themselves, and `rebuild` re-embeds everything (after a change of model).

Search is exact: each process keeps the scope's vectors of the configured model as one
matrix per kind (embedding/matrix.py) and compares the query with every row. The
matrix catches up by `text_vector.id`, which every write assigns anew; a rebuild is announced
through the change record (`store.changes`) so every process re-reads it whole. Vectors of
another model are never read: a model change re-embeds, never mixes.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

import numpy as np

from groundnote.config import SearchConfig
from groundnote.domain.progress import Progress
from groundnote.embedding import Embedder, embedder_for
from groundnote.embedding.base import Matrix, Vector
from groundnote.embedding.matrix import VectorRows
from groundnote.embedding.per_model import PerModel
from groundnote.store import Database
from groundnote.store import changes as change_record
from groundnote.store.changes import Watch
from groundnote.store.sql import Connection

__all__ = [
    "CATCH_UP_MAX",
    "CHANGE_KIND",
    "VectorIndex",
    "catch_up",
    "embed_new",
    "rebuild_vectors",
    "vector_drift",
    "vector_index",
]

CHANGE_KIND = "text_vector"
# A search embeds at most this many new texts of each kind before it answers (0.5-1 s with
# the local model on a loaded 2-core machine); the rest follow on the next searches, and a
# bulk writer (mail import) catches up itself.
CATCH_UP_MAX = 16
# Texts embedded and written per transaction by a catch-up or a rebuild.
BATCH = 64
# A source's text is cut here: the local model reads 512 tokens, and a long body's start says
# what it is about.
SOURCE_CHARS = 2000
# `check` re-embeds this many texts and compares them with their stored vectors.
SPOT_CHECKS = 3
SAME_VECTOR = 0.999

KINDS = ("rule", "source")
_TEXT_SQL = {
    "rule": "SELECT t.seq, t.statement AS text FROM rule t",
    "source": "SELECT t.seq, t.title || ' ' || t.body AS text FROM source t",
}


def _missing_sql(kind: str) -> str:
    return (
        f"{_TEXT_SQL[kind]} WHERE t.seq > ? AND NOT EXISTS (SELECT 1 FROM text_vector v "
        f"WHERE v.kind = '{kind}' AND v.seq = t.seq AND v.model = ?) ORDER BY t.seq"
    )


def _blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _write(conn: Connection, model: str, kind: str, seqs: Sequence[int], rows: Matrix) -> None:
    """Upsert the vectors of `seqs` (a vector of another model is replaced), each with a new id."""
    base = conn.execute("SELECT coalesce(max(id), 0) FROM text_vector").fetchone()[0]
    conn.executemany(
        "INSERT INTO text_vector (id, kind, seq, model, dim, vector) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (kind, seq) DO UPDATE SET id = excluded.id, model = excluded.model, "
        "dim = excluded.dim, vector = excluded.vector",
        [
            (base + i + 1, kind, seq, model, rows.shape[1], _blob(row))
            for i, (seq, row) in enumerate(zip(seqs, rows, strict=True))
        ],
    )
    # Other processes and servers learn of new vectors only from the change record: on
    # PostgreSQL nothing else moves when a vector is written.
    change_record.record(conn, CHANGE_KIND, kind)


def _embed_into(
    db: Database,
    embedder: Embedder,
    kind: str,
    texts: list[tuple[int, str]],
    progress: Progress | None,
    done: int,
    total: int,
) -> int:
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        rows = embedder.passages([text[:SOURCE_CHARS] for _, text in batch])
        with db.write() as conn:
            _write(conn, embedder.model_id, kind, [seq for seq, _ in batch], rows)
        done += len(batch)
        if progress is not None:
            progress("embed", done, total)
    return done


def _pending(
    db: Database, model: str, after: dict[str, int], limit: int | None
) -> tuple[dict[str, list[tuple[int, str]]], dict[str, int]]:
    """Texts above `after` without a vector of `model` (at most `limit`), and the newest seqs."""
    found: dict[str, list[tuple[int, str]]] = {}
    newest: dict[str, int] = {}
    with db.read() as conn:
        for kind in KINDS:
            table = kind
            newest[kind] = conn.execute(f"SELECT coalesce(max(seq), 0) FROM {table}").fetchone()[0]
            if newest[kind] <= after[kind]:
                found[kind] = []
                continue
            sql = _missing_sql(kind) + (" LIMIT ?" if limit is not None else "")
            params: tuple[object, ...] = (after[kind], model)
            if limit is not None:
                params += (limit,)
            found[kind] = [(int(r[0]), str(r[1])) for r in conn.execute(sql, params)]
    return found, newest


class VectorIndex:
    """One process's copy of a scope's vectors of one model; thread-safe."""

    def __init__(self, db: Database, embedder: Embedder) -> None:
        self._db = weakref.ref(db)
        self._embedder = embedder
        self._watch = Watch(db)
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        dim = self._embedder.dimension
        self._rows = {kind: VectorRows(dim) for kind in KINDS}
        self._where: dict[str, dict[int, int]] = {kind: {} for kind in KINDS}
        self._loaded_id = 0
        # Texts up to these seqs are known to have a vector (None: not looked yet).
        self._covered: dict[str, int] | None = None

    def _database(self) -> Database:
        db = self._db()
        if db is None:
            raise RuntimeError("the store file of this vector index was closed and released")
        return db

    def catch_up(self, limit: int | None = CATCH_UP_MAX, progress: Progress | None = None) -> int:
        """Embed and write texts that lack a vector of the model (at most `limit` of each
        kind); how many were embedded.

        The first call of a process looks at every text (one anti-join over the scope); later
        calls only at texts above the last seq done, which costs two index look-ups when
        nothing was added. A scope far behind (a model changed without a rebuild) is caught
        up `limit` texts a search, each search starting where the last one stopped.
        """
        with self._lock:
            db = self._database()
            after = self._covered or dict.fromkeys(KINDS, 0)
            found, newest = _pending(db, self._embedder.model_id, after, limit)
            total = sum(len(texts) for texts in found.values())
            done = 0
            covered = dict(newest)
            for kind in KINDS:
                done = _embed_into(db, self._embedder, kind, found[kind], progress, done, total)
                if limit is not None and len(found[kind]) == limit:
                    covered[kind] = found[kind][-1][0]
            self._covered = covered
            return total

    def nearest(self, query: Vector, kind: str, k: int, floor: float) -> list[tuple[int, float]]:
        """The `k` texts of `kind` most similar to `query` from `floor` on, best first."""
        with self._lock:
            self._refresh()
            return [(seq, score) for _, seq, score in self._rows[kind].nearest(query, k, floor)]

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return sum(len(rows) for rows in self._rows.values())

    def _put(self, kind: str, seq: int, row: Vector) -> None:
        slot = self._where[kind].get(seq)
        if slot is None:
            self._where[kind][seq] = self._rows[kind].add(seq, row)
        else:
            self._rows[kind].set(slot, seq, row)

    def _refresh(self) -> None:
        if not self._watch.moved():
            return
        with self._watch.snapshot() as conn:
            caught = self._watch.since(conn, CHANGE_KIND)
            if caught.everything:
                self._reset()
            model = self._embedder.model_id
            for vid, kind, seq, blob in conn.execute(
                "SELECT id, kind, seq, vector FROM text_vector WHERE model = ? AND id > ? "
                "ORDER BY id",
                (model, self._loaded_id),
            ):
                row = np.frombuffer(blob, dtype="<f4")
                if len(row) == self._embedder.dimension:
                    self._put(kind, int(seq), row)
                self._loaded_id = max(self._loaded_id, int(vid))
            self._watch.advance(caught)


_INDEXES: PerModel[Database, VectorIndex] = PerModel(VectorIndex)


def vector_index(db: Database, embedder: Embedder) -> VectorIndex:
    """The process's index of `db` for `embedder`'s model, made on first use."""
    return _INDEXES.get(db, embedder)


def catch_up(db: Database, embedder: Embedder, progress: Progress | None = None) -> int:
    """Embed every text of the scope that lacks a vector of the model (a bulk writer's call)."""
    return vector_index(db, embedder).catch_up(limit=None, progress=progress)


def embed_new(db: Database, config: SearchConfig, progress: Progress | None = None) -> int:
    """After a bulk write (a mail import): embed what it added, in batches; 0 when off."""
    if config.semantic == "off":
        return 0
    return catch_up(db, embedder_for(config), progress)


def rebuild_vectors(db: Database, embedder: Embedder, progress: Progress | None = None) -> int:
    """Embed every rule and source again and drop vectors of other models; how many texts.

    Each batch replaces its texts' vectors in its own transaction, so searches go on meanwhile
    (a text not yet re-embedded is found by full text only); the end announces the rebuild.
    """
    texts: dict[str, list[tuple[int, str]]] = {}
    with db.read() as conn:
        for kind in KINDS:
            texts[kind] = [
                (int(r[0]), str(r[1])) for r in conn.execute(f"{_TEXT_SQL[kind]} ORDER BY t.seq")
            ]
    total = sum(len(t) for t in texts.values())
    if progress is not None:
        progress("embed", 0, total)
    done = 0
    for kind in KINDS:
        done = _embed_into(db, embedder, kind, texts[kind], progress, done, total)
    with db.write() as conn:
        conn.execute("DELETE FROM text_vector WHERE model <> ?", (embedder.model_id,))
        conn.execute(
            "DELETE FROM text_vector WHERE (kind = 'rule' AND seq NOT IN (SELECT seq FROM rule)) "
            "OR (kind = 'source' AND seq NOT IN (SELECT seq FROM source))"
        )
        change_record.record(conn, CHANGE_KIND, change_record.EVERYTHING)
    return total


def vector_drift(db: Database, embedder: Embedder, scope: str) -> list[str]:
    """How `text_vector` differs from a rebuild with `embedder` (none: equal).

    Completeness, model and shape are checked for every row; equality with a fresh embedding
    for the newest few texts of each kind (re-embedding all of them is the rebuild itself).
    """
    remedy = f"run `groundnote rebuild vectors --scope {scope}`"
    model, dim = embedder.model_id, embedder.dimension
    problems: list[str] = []
    with db.read() as conn:
        for kind in KINDS:
            lacking = conn.execute(
                f"SELECT count(*) FROM ({_missing_sql(kind)}) m", (0, model)
            ).fetchone()[0]
            if lacking:
                problems.append(f"{lacking} {kind}s lack a vector of {model}; {remedy}")
        for other, count in conn.execute(
            "SELECT model, count(*) FROM text_vector WHERE model <> ? GROUP BY model "
            "ORDER BY model",
            (model,),
        ):
            problems.append(
                f"{count} vectors are of model {other}, but search uses {model}; {remedy}"
            )
        wrong = conn.execute(
            "SELECT count(*) FROM text_vector WHERE model = ? AND dim <> ?", (model, dim)
        ).fetchone()[0]
        if wrong:
            problems.append(f"{wrong} vectors of {model} do not have {dim} dimensions; {remedy}")
        orphans = conn.execute(
            "SELECT count(*) FROM text_vector WHERE (kind = 'rule' AND seq NOT IN "
            "(SELECT seq FROM rule)) OR (kind = 'source' AND seq NOT IN (SELECT seq FROM source))"
        ).fetchone()[0]
        if orphans:
            problems.append(f"{orphans} vectors belong to no rule or source; {remedy}")
    return problems + _spot_check(_samples(db, embedder), embedder, remedy)


def _samples(db: Database, embedder: Embedder) -> list[tuple[str, int, str, bytes]]:
    """The newest few texts of each kind with their stored vector of the model."""
    samples: list[tuple[str, int, str, bytes]] = []
    with db.read() as conn:
        for kind in KINDS:
            samples += [
                (kind, int(r[0]), str(r[1]), bytes(r[2]))
                for r in conn.execute(
                    f"SELECT t.seq, t.text, v.vector FROM ({_TEXT_SQL[kind]}) t "
                    f"JOIN text_vector v ON v.kind = '{kind}' AND v.seq = t.seq "
                    "WHERE v.model = ? AND v.dim = ? ORDER BY t.seq DESC LIMIT ?",
                    (embedder.model_id, embedder.dimension, SPOT_CHECKS),
                )
            ]
    return samples


def _spot_check(
    samples: list[tuple[str, int, str, bytes]], embedder: Embedder, remedy: str
) -> list[str]:
    if not samples:
        return []
    fresh = embedder.passages([text[:SOURCE_CHARS] for _, _, text, _ in samples])
    problems = []
    for (kind, seq, _, blob), row in zip(samples, fresh, strict=True):
        stored = np.frombuffer(blob, dtype="<f4")
        if float(stored @ row) < SAME_VECTOR:
            problems.append(f"the vector of {kind} seq {seq} differs from its text's; {remedy}")
    return problems
