"""The in-memory recall index of DESIGN §8.0, one per scope file, kept in step with entity_fts.

`entity_fts` is the durable index and the rebuild source; serving recall from it (the seed's OR
of every trigram, ORDER BY rank) took 180 ms p95 at 100,000 entities. This index holds the same
normalised texts with a trigram → seq posting array, an exact-text map, a map of lookup keys
(initials, and first initial + last name for persons) and how many entities hold each token
(the scoring's frequency weights, issue 21), and answers in a few milliseconds. Beside them it
holds every entity's current row (graph/current.py), so that resolve orders and answers without
reading the store. It is built on first use and kept in step by the store's change record
(`store.changes`): every write of entity_fts and every new entity version (`note_version`)
records the entity's seq in the same transaction, and every read of the index first re-reads
the seqs recorded since the index last looked, whichever process committed them. Both run under
the index lock on the file's snapshot connection, so the index only ever holds committed rows,
a rolled back write never reaches it, and a write transaction (which holds the file's write
lock) checks duplicates against the latest committed state.

A process holds the indexes of the scopes in use within a budget of entities
(`resolve.index_budget_entities`, `set_budget`): past it the least recently used scopes'
indexes are emptied, and their next use rebuilds them as on first use (issue 16).

Counting shared trigrams is the hot loop: generated and real names repeat a small vocabulary
("projekt", "vertrieb", "gmbh"), so a query's posting lists add up to 100,000 and more seqs.
Each list adds one to its entities' counts in an array over all seqs (an entity is in a list
at most once); a trigram most entities hold keeps, besides its list, a byte map over the seqs,
added in one pass of bytes instead of a scatter. The similarity of every entity that shares
enough trigrams is then one vector expression, and the top `limit` are chosen exactly (ties
by seq) rather than from a count-ordered shortlist.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from groundnote.graph.current import ALL_CURRENT_SQL, CURRENT_SQL, Current, Rows
from groundnote.graph.normalize import lookup_keys, match_form, trigrams
from groundnote.store import Database
from groundnote.store.changes import EVERYTHING, Watch, record
from groundnote.store.database import Apply
from groundnote.store.sql import Connection, Row

__all__ = [
    "CHANGE_KIND",
    "TrigramIndex",
    "has_room",
    "held_entities",
    "index_for",
    "note_version",
    "set_budget",
]

# The change record's kind for an entity whose row of entity_fts or whose current version
# changed; its ref is the entity's seq (entity_fts's rowid).
CHANGE_KIND = "entity_fts"
# The rows of the entities the change record names after a seq (`Watch.ahead`'s).
_CHANGED = (
    "WHERE {seq} IN (SELECT CAST(ref AS INTEGER) FROM change_record "
    "WHERE seq > ? AND kind = ? AND ref <> ?)"
)
# SQLite allows 32,766 host parameters; a catch-up after a bulk import re-reads in batches.
_BATCH = 5000

# An exact or initials key usually names one entity: an int costs a fraction of a set.
_Seqs = int | set[int]

# A trigram held by one entity in _DENSE_SHARE or more, and by _DENSE_MIN at least, is counted
# from a byte map. At 100,000 entities named alike, the twelve lists a query shared with every
# entity took 3 ms to scatter and 0.1 ms to add as maps; a map costs a byte per seq, so these
# shares bound the maps to eight bytes per entity for each trigram an entity has at most.
_DENSE_SHARE = 8
_DENSE_MIN = 4096


class TrigramIndex:
    def __init__(self, db: Database) -> None:
        # Weak, so that the registry's value does not keep its key (the Database) alive.
        self._db = weakref.ref(db)
        self._watch = Watch(db)
        db.follow(CHANGE_KIND, self)
        self._lock = threading.Lock()
        self._built = False
        self._texts: dict[int, tuple[str, ...]] = {}  # seq → (name, *aliases), normalised
        # seq → how many distinct trigrams its texts have (0: no such entity), for Jaccard.
        self._sizes: npt.NDArray[np.int32] = np.zeros(1024, dtype=np.int32)
        self._postings: dict[str, array[int]] = {}
        self._dense: dict[str, npt.NDArray[np.uint8]] = {}  # gram → 1 at the seqs holding it
        self._exact: dict[str, _Seqs] = {}
        self._initials: dict[str, _Seqs] = {}
        self._tokens: dict[str, int] = {}  # token of a matching form → entities holding it
        self._rows = Rows()  # every entity's current row (graph/current.py)

    # -- keeping in step -------------------------------------------------------------------

    def _ensure_built(self) -> None:
        """Build on first use, else catch up with what was committed since the last look;
        called under the lock at the start of every read of the index."""
        db = self._db()
        if db is None or not self._watch.moved():
            return
        with self._watch.snapshot() as conn:
            caught = self._watch.since(conn, CHANGE_KIND)
            if caught.everything:
                self._clear()
                for row in conn.execute("SELECT rowid, name, aliases FROM entity_fts"):
                    self._put(row[0], _texts(row[1], row[2]))
                self._rows.put(conn.execute(ALL_CURRENT_SQL))
                self._built = True
            elif caught.refs:
                self._reread(conn, sorted(int(ref) for ref in caught.refs))
            self._watch.advance(caught)

    @property
    def built(self) -> bool:
        return self._built

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """The index lock around one read of the index, caught up first. The read counts as a
        use for the process's budget (`set_budget`); the scopes it pushes out are emptied after
        this lock is released, so that no thread ever holds two indexes' locks."""
        victims: list[TrigramIndex] = []
        try:
            with self._lock:
                self._ensure_built()
                victims = _HELD.used(self, len(self._texts))
                yield
        finally:  # after a failed read too: the victims have left the LRU already
            for victim in victims:
                victim._evict()

    def warm(self) -> None:
        """Read everything committed now, so that the first resolve does not wait for it."""
        with self._reading():
            pass

    def before_commit(self, conn: Connection) -> Apply | None:
        """A write of this process changed entity_fts (the store calls this just before its
        COMMIT, `Database.follow`): read the rows it leaves, so that the index takes them in
        with the COMMIT's round trip instead of a catch-up of its own after it."""
        if not self._built:
            return None  # evicted or never used: the next use reads everything committed
        ahead = self._watch.ahead(conn, CHANGE_KIND)
        if ahead is None:
            return None
        changed = (ahead.seen, CHANGE_KIND, EVERYTHING)
        rows = conn.prefetch(
            "SELECT rowid, name, aliases FROM entity_fts " + _CHANGED.format(seq="rowid"), changed
        )
        versions = conn.prefetch(CURRENT_SQL + " " + _CHANGED.format(seq="e.seq"), changed)

        def apply() -> None:
            with self._lock:
                caught = ahead.caught()
                if caught is None or not self._built:
                    return
                try:
                    texts = {r[0]: _texts(r[1], r[2]) for r in rows.fetchall()}
                    seqs = sorted(int(ref) for ref in caught.refs)
                    for seq in seqs:
                        self._drop(seq)
                        if seq in texts:
                            self._put(seq, texts[seq])
                    self._put_rows(seqs, versions.fetchall())
                except BaseException:
                    self._clear()  # half taken in: rebuilt from entity_fts on the next use
                    self._watch.forget()
                    raise
                self._watch.advance_to_commit(caught)
                victims = _HELD.used(self, len(self._texts))
            for victim in victims:
                victim._evict()

        return apply

    def _reread(self, conn: Connection, wanted: list[int]) -> None:
        for start in range(0, len(wanted), _BATCH):
            part = wanted[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            rows = {
                r[0]: _texts(r[1], r[2])
                for r in conn.execute(
                    f"SELECT rowid, name, aliases FROM entity_fts WHERE rowid IN ({marks})", part
                )
            }
            for seq in part:
                self._drop(seq)
                if seq in rows:
                    self._put(seq, rows[seq])
            self._put_rows(part, conn.execute(f"{CURRENT_SQL} WHERE e.seq IN ({marks})", part))

    def _put_rows(self, seqs: list[int], rows: Iterable[Row]) -> None:
        """The current rows of `seqs` as read (a seq without a row is held no longer)."""
        for seq in seqs:
            self._rows.drop(seq)
        self._rows.put(rows)

    def reset(self) -> None:
        """Forget everything; the next use rebuilds from entity_fts."""
        with self._lock:
            self._clear()
            self._watch.forget()
            _HELD.dropped(self)

    def _evict(self) -> None:
        """Empty the index for the budget, unless it was used again since it was chosen."""
        with self._lock:
            if _HELD.holds(self):
                return
            self._clear()
            self._watch.forget()

    def _clear(self) -> None:
        self._built = False
        self._texts.clear()
        self._sizes = np.zeros(1024, dtype=np.int32)
        self._postings.clear()
        self._dense.clear()
        self._exact.clear()
        self._initials.clear()
        self._tokens.clear()
        self._rows = Rows()

    def _put(self, seq: int, texts: tuple[str, ...]) -> None:
        self._texts[seq] = texts
        grams: set[str] = set()
        for text in texts:
            grams |= trigrams(text)
            _add(self._exact, text, seq)
            for key in lookup_keys(text):
                _add(self._initials, key, seq)
        for token in _tokens_of(texts):
            self._tokens[token] = self._tokens.get(token, 0) + 1
        if seq >= len(self._sizes):
            self._grow(max(seq + 1, 2 * len(self._sizes)))
        self._sizes[seq] = len(grams)
        for gram in grams:
            posting = self._postings.get(gram)
            if posting is None:
                self._postings[gram] = array("i", (seq,))
            else:
                posting.append(seq)
                dense = self._dense.get(gram)
                if dense is not None:
                    dense[seq] = 1

    def _grow(self, capacity: int) -> None:
        """Room for seqs below `capacity` in the sizes and every byte map."""
        self._sizes = _extended(self._sizes, capacity)
        self._dense = {gram: _extended(dense, capacity) for gram, dense in self._dense.items()}

    def _drop(self, seq: int) -> None:
        texts = self._texts.pop(seq, None)
        if texts is None:
            return
        self._sizes[seq] = 0
        grams: set[str] = set()
        for text in texts:
            grams |= trigrams(text)
            _remove(self._exact, text, seq)
            for key in lookup_keys(text):
                _remove(self._initials, key, seq)
        for token in _tokens_of(texts):
            left = self._tokens[token] - 1
            if left:
                self._tokens[token] = left
            else:
                del self._tokens[token]
        for gram in grams:
            posting = self._postings[gram]
            posting.remove(seq)
            dense = self._dense.get(gram)
            if dense is not None:
                dense[seq] = 0
            if not posting:
                del self._postings[gram]
                self._dense.pop(gram, None)

    # -- recall ----------------------------------------------------------------------------

    def texts(self, seq: int) -> tuple[str, ...]:
        with self._reading():
            return self._texts.get(seq, ())

    def texts_of(self, seqs: Iterable[int]) -> dict[int, tuple[str, ...]]:
        """The texts of several entities under one lock; unknown seqs are left out."""
        with self._reading():
            known = self._texts
            return {seq: known[seq] for seq in seqs if seq in known}

    def current(self, seqs: Iterable[int]) -> dict[int, Current]:
        """The current rows of these entities with their chains, under one lock; unknown seqs
        are left out."""
        with self._reading():
            rows = self._rows
            return {seq: found for seq in seqs if (found := rows.get(seq)) is not None}

    def exact(self, key: str) -> set[int]:
        with self._reading():
            return _get(self._exact, key)

    def by_initials(self, key: str, cap: int) -> list[int]:
        with self._reading():
            return sorted(_get(self._initials, key))[:cap]

    def token_counts(self, tokens: Iterable[str]) -> tuple[int, list[int]]:
        """How many entities the index holds, and how many of them hold each token."""
        with self._reading():
            held = self._tokens
            return len(self._texts), [held.get(t, 0) for t in tokens]

    def rarest(self, key: str, count: int) -> list[str]:
        """The `count` trigrams of key held by the fewest entities; [] until the index is built
        (a check must not build it from inside a write, where it would miss its own rows).
        Not caught up first: any trigrams of key find every duplicate, the rarest only read
        the fewest rows, and a few entities more or less hardly move which they are."""
        with self._lock:
            if not self._built:
                return []
            postings = self._postings
            return sorted(trigrams(key), key=lambda g: (len(postings.get(g, ())), g))[:count]

    def similar(self, key: str, limit: int) -> list[int]:
        """The `limit` entities sharing the most trigrams with key by Jaccard similarity
        (shared / union of trigram sets), best first, ties by seq."""
        grams = trigrams(key)
        if not grams:
            return []
        with self._reading():
            counts = self._shared(grams)
            if counts is None:
                return []
            return self._ranked(len(grams), counts, limit)

    def _shared(self, grams: set[str]) -> npt.NDArray[np.unsignedinteger[Any]] | None:
        """How many of `grams` each seq holds; None when no entity holds any."""
        # An entity holds each gram at most once, so a count fits a byte for keys of fewer
        # than 256 trigrams (the 200 characters allowed give 198); byte-wide passes are the
        # cheapest. For the same reason the sparse lists' count of a seq, added into its byte,
        # never passes the number of grams.
        counts: npt.NDArray[np.unsignedinteger[Any]] = np.zeros(
            len(self._sizes), dtype=np.uint8 if len(grams) < 256 else np.uint16
        )
        sparse: list[npt.NDArray[np.int32]] = []
        shared = False
        for gram in grams:
            found = self._postings.get(gram)
            if not found:
                continue
            shared = True
            dense = self._dense_map(gram, found)
            if dense is None:
                sparse.append(np.frombuffer(found, dtype=np.int32))
            else:
                np.add(counts, dense, out=counts)
        if sparse:
            # The lists counted in one pass: a scatter per list cost 8 µs of call overhead
            # each, so 18 lists of a 600-entity scope took 160 µs, one count of them all 30.
            held = np.bincount(np.concatenate(sparse))
            upto = counts[: len(held)]
            np.add(upto, held, out=upto, casting="unsafe")
        return counts if shared else None

    def _dense_map(self, gram: str, posting: array[int]) -> npt.NDArray[np.uint8] | None:
        """The byte map of a gram held by many entities, made on its first count; None for
        the rest. Kept in step by `_put` and `_drop` from then on."""
        dense = self._dense.get(gram)
        if dense is None and len(posting) >= max(_DENSE_MIN, len(self._texts) // _DENSE_SHARE):
            dense = np.zeros(len(self._sizes), dtype=np.uint8)
            dense[np.frombuffer(posting, dtype=np.int32)] = 1
            self._dense[gram] = dense
        return dense

    def _ranked(
        self, size: int, counts: npt.NDArray[np.unsignedinteger[Any]], limit: int
    ) -> list[int]:
        """The `limit` best of the entities sharing trigrams, by their `counts`."""
        # Jaccard = shared / (size + own size - shared) ≤ shared / size. The fewest entities
        # sharing the most trigrams that fill the limit give a bar the answer reaches (their
        # limit-th best); whoever reaches it shares `floor` trigrams or more, so only those are
        # ranked: a few thousand, where names that share most of their trigrams with every
        # other name (a legal form, a common word) put every entity one pass over the limit.
        most = _most_shared(counts, limit)
        seqs = (counts >= most).nonzero()[0]
        scores = self._jaccard(size, counts, seqs)
        if most > 1 and len(seqs) >= limit:
            bar = float(np.sort(scores)[-limit])
            floor = max(1, int(np.ceil(bar * size - 1e-9)))
            if floor < most:
                seqs = (counts >= floor).nonzero()[0]
                scores = self._jaccard(size, counts, seqs)
        # seqs ascend (nonzero), so a stable sort by descending score breaks ties by seq.
        order = np.argsort(-scores, kind="stable")[:limit]
        ranked: list[int] = seqs[order].tolist()
        return ranked

    def _jaccard(
        self, size: int, counts: npt.NDArray[np.unsignedinteger[Any]], seqs: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.float64]:
        """shared / union of the key's `size` trigrams and each of `seqs`' own."""
        shared = counts[seqs]
        scores: npt.NDArray[np.float64] = shared / (size + self._sizes[seqs] - shared)
        return scores

    def __len__(self) -> int:
        with self._reading():
            return len(self._texts)


def _most_shared(counts: npt.NDArray[np.unsignedinteger[Any]], limit: int) -> int:
    """The most trigrams that `limit` entities share, 1 at least."""
    top = int(counts.max())
    # The limit is usually filled a few levels below the top: a pass of bytes per level
    # there costs a fifth of counting every level at once, which is done past four.
    for most in range(top, max(1, top - 4), -1):
        if np.count_nonzero(counts >= most) >= limit:
            return most
    held = np.bincount(counts)[::-1].cumsum()[::-1]  # held[s]: entities sharing ≥ s
    return max((s for s in range(1, len(held)) if held[s] >= limit), default=1)


def _extended(values: npt.NDArray[Any], capacity: int) -> npt.NDArray[Any]:
    grown = np.zeros(capacity, dtype=values.dtype)
    grown[: len(values)] = values
    return grown


def _texts(name: str, aliases: str) -> tuple[str, ...]:
    return (name, *(a for a in aliases.split("|") if a))


def _tokens_of(texts: tuple[str, ...]) -> set[str]:
    # Counted once per entity: a token in its name and an alias is one use of it.
    return {token for text in texts for token in match_form(text).split()}


def _get(index: dict[str, _Seqs], key: str) -> set[int]:
    found = index.get(key)
    if found is None:
        return set()
    return {found} if isinstance(found, int) else set(found)


def _add(index: dict[str, _Seqs], key: str, seq: int) -> None:
    held = index.get(key)
    if held is None:
        index[key] = seq
    elif isinstance(held, int):
        if held != seq:
            index[key] = {held, seq}
    else:
        held.add(seq)


def _remove(index: dict[str, _Seqs], key: str, seq: int) -> None:
    held = index.get(key)
    if held is None or held == seq:
        index.pop(key, None)
    elif isinstance(held, set):
        held.discard(seq)
        if len(held) == 1:
            index[key] = held.pop()


class _Held:
    """The built indexes of this process, least recently used first, with how many entities
    each holds: a use that takes the total past the budget names the least recently used
    others to empty (never the one in use, so one scope larger than the budget still works).
    Entities, not bytes: the count is exact and cheap to keep, and an index's memory grows
    with it (bench/resolve_memory.py measures the bytes per 100,000). Called under the used
    index's lock; never takes an index's lock itself."""

    def __init__(self) -> None:
        # Reentrant: an index dropped in a reference cycle is collected wherever the collector
        # happens to run, within `used` too, and its weakref's callback (`_gone`) then takes
        # this lock again in the same thread (a plain lock hung the process there).
        self._lock = threading.RLock()
        self._sizes: OrderedDict[int, tuple[weakref.ref[TrigramIndex], int]] = OrderedDict()
        self._total = 0
        self.budget: int | None = None

    def used(self, index: TrigramIndex, entities: int) -> list[TrigramIndex]:
        key = id(index)
        with self._lock:
            held = self._sizes.pop(key, None)
            if held is not None:
                self._total -= held[1]
            self._sizes[key] = (weakref.ref(index, self._gone(key)), entities)
            self._total += entities
            victims = []
            while self.budget is not None and self._total > self.budget and len(self._sizes) > 1:
                _, (ref, size) = self._sizes.popitem(last=False)
                self._total -= size
                victim = ref()
                if victim is not None:
                    victims.append(victim)
            return victims

    def _gone(self, key: int) -> Any:
        def forget(ref: weakref.ref[TrigramIndex]) -> None:
            with self._lock:
                held = self._sizes.get(key)
                if held is not None and held[0] is ref:
                    del self._sizes[key]
                    self._total -= held[1]

        return forget

    def dropped(self, index: TrigramIndex) -> None:
        with self._lock:
            held = self._sizes.pop(id(index), None)
            if held is not None:
                self._total -= held[1]

    def holds(self, index: TrigramIndex) -> bool:
        with self._lock:
            return id(index) in self._sizes

    def total(self) -> int:
        with self._lock:
            return self._total


_HELD = _Held()


def set_budget(entities: int | None) -> None:
    """How many entities this process's resolve indexes hold together at most (None: no
    bound); `resolve.index_budget_entities`, set when a runtime opens. Takes effect from the
    next use of an index."""
    _HELD.budget = entities


def held_entities() -> int:
    """How many entities the built resolve indexes of this process hold together."""
    return _HELD.total()


def has_room() -> bool:
    """Whether the budget leaves room for another scope's index (warming stops when not)."""
    return _HELD.budget is None or _HELD.total() < _HELD.budget


_INDEXES: weakref.WeakKeyDictionary[Database, TrigramIndex] = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def index_for(db: Database) -> TrigramIndex:
    with _INDEXES_LOCK:
        index = _INDEXES.get(db)
        if index is None:
            index = _INDEXES[db] = TrigramIndex(db)
        return index


def note_version(conn: Connection, seq: int) -> None:
    """Inside the write of a new version of entity `seq`: every process's index re-reads the
    entity's current row (status, type, parent) before it answers again."""
    record(conn, CHANGE_KIND, str(seq))
