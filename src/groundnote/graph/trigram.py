"""The in-memory recall index of DESIGN §8.0, one per scope file, kept in step with entity_fts.

`entity_fts` is the durable index and the rebuild source; serving recall from it (the seed's
OR of every trigram, ORDER BY rank) took 180 ms p95 at 100,000 entities. This index holds the
same normalised texts with a trigram → seq posting array, an exact-text map and an initials
map, and answers in a few milliseconds. It is built from entity_fts on first use through a
private connection (so it only ever sees committed rows) and refreshed after each commit by
re-reading the rows that write touched, under the index lock: the last refresh always reads
the latest committed state, and a rolled back write never reaches it.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from collections import Counter
from collections.abc import Iterable
from itertools import chain

from groundnote.graph.normalize import initials, trigrams
from groundnote.store import Database, connect

__all__ = ["TrigramIndex", "index_for"]

_EMPTY = array("i")


class TrigramIndex:
    def __init__(self, db: Database) -> None:
        # Weak, so that the registry's value does not keep its key (the Database) alive.
        self._db = weakref.ref(db)
        self._path = db.path
        self._lock = threading.Lock()
        self._built = False
        self._texts: dict[int, tuple[str, ...]] = {}  # seq → (name, *aliases), normalised
        self._grams: dict[int, int] = {}  # seq → how many distinct trigrams its texts have
        self._postings: dict[str, array[int]] = {}
        self._exact: dict[str, set[int]] = {}
        self._initials: dict[str, set[int]] = {}

    # -- keeping in step -------------------------------------------------------------------

    def _ensure_built(self) -> None:
        if self._built:
            return
        conn = connect(self._path)
        try:
            for row in conn.execute("SELECT rowid, name, aliases FROM entity_fts"):
                self._put(row[0], _texts(row[1], row[2]))
        finally:
            conn.close()
        self._built = True

    def refresh(self, seqs: Iterable[int]) -> None:
        """Re-read these entities from the committed entity_fts; call after the commit."""
        wanted = sorted(set(seqs))
        with self._lock:
            if not self._built or not wanted:
                return  # the first use reads everything committed
            marks = ",".join("?" * len(wanted))
            db = self._db()
            if db is None:
                return
            with db.read() as conn:
                rows = {
                    r[0]: _texts(r[1], r[2])
                    for r in conn.execute(
                        f"SELECT rowid, name, aliases FROM entity_fts WHERE rowid IN ({marks})",
                        wanted,
                    )
                }
            for seq in wanted:
                self._drop(seq)
                if seq in rows:
                    self._put(seq, rows[seq])

    def reset(self) -> None:
        """Forget everything; the next use rebuilds from entity_fts (after rebuild_fts)."""
        with self._lock:
            self._built = False
            self._texts.clear()
            self._grams.clear()
            self._postings.clear()
            self._exact.clear()
            self._initials.clear()

    def _put(self, seq: int, texts: tuple[str, ...]) -> None:
        self._texts[seq] = texts
        grams: set[str] = set()
        for text in texts:
            grams |= trigrams(text)
            self._exact.setdefault(text, set()).add(seq)
            key = initials(text)
            if 2 <= len(key) <= 6:
                self._initials.setdefault(key, set()).add(seq)
        self._grams[seq] = len(grams)
        for gram in grams:
            posting = self._postings.get(gram)
            if posting is None:
                self._postings[gram] = array("i", (seq,))
            else:
                posting.append(seq)

    def _drop(self, seq: int) -> None:
        texts = self._texts.pop(seq, None)
        if texts is None:
            return
        self._grams.pop(seq, None)
        grams: set[str] = set()
        for text in texts:
            grams |= trigrams(text)
            _discard(self._exact, text, seq)
            _discard(self._initials, initials(text), seq)
        for gram in grams:
            posting = self._postings[gram]
            posting.remove(seq)
            if not posting:
                del self._postings[gram]

    # -- recall ----------------------------------------------------------------------------

    def texts(self, seq: int) -> tuple[str, ...]:
        with self._lock:
            self._ensure_built()
            return self._texts.get(seq, ())

    def exact(self, key: str) -> set[int]:
        with self._lock:
            self._ensure_built()
            return set(self._exact.get(key, ()))

    def by_initials(self, key: str, cap: int) -> list[int]:
        with self._lock:
            self._ensure_built()
            return sorted(self._initials.get(key, ()))[:cap]

    def similar(self, key: str, limit: int) -> list[int]:
        """The `limit` entities sharing the most trigrams with key, by Jaccard similarity."""
        grams = trigrams(key)
        if not grams:
            return []
        with self._lock:
            self._ensure_built()
            shared = Counter(chain.from_iterable(self._postings.get(g, _EMPTY) for g in grams))
            if not shared:
                return []
            size = len(grams)
            sizes = self._grams
            # The most shared first bounds the work: a text sharing n trigrams scores at most
            # n / size, so only the best few hundred by count need the exact similarity.
            top = shared.most_common(limit * 4)
            ranked = sorted(
                top, key=lambda item: (-item[1] / (size + sizes[item[0]] - item[1]), item[0])
            )
            return [seq for seq, _ in ranked[:limit]]

    def __len__(self) -> int:
        with self._lock:
            self._ensure_built()
            return len(self._texts)


def _texts(name: str, aliases: str) -> tuple[str, ...]:
    return (name, *(a for a in aliases.split("|") if a))


def _discard(index: dict[str, set[int]], key: str, seq: int) -> None:
    found = index.get(key)
    if found is not None:
        found.discard(seq)
        if not found:
            del index[key]


_INDEXES: weakref.WeakKeyDictionary[Database, TrigramIndex] = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def index_for(db: Database) -> TrigramIndex:
    with _INDEXES_LOCK:
        index = _INDEXES.get(db)
        if index is None:
            index = _INDEXES[db] = TrigramIndex(db)
        return index
