"""Blocks keyed by content key, their placement in documents, and `block_texts` per locale.

Extraction writes a changed document's units and marks the touched texts stale; the trigram
index over `block_texts` is reconciled by `reconcile_index` right before a search.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from groundnote.context.blocks import Document
from groundnote.context.locales import SOURCE, canonical
from groundnote.context.presence import has_table
from groundnote.domain.progress import Progress
from groundnote.store import Database, Subsystem, load_migrations
from groundnote.store.sql import Connection

__all__ = ["SUBSYSTEM", "BlockCache", "BlockText", "Placement"]

SUBSYSTEM = Subsystem("blockcache", load_migrations("groundnote.context.blockcache", "blockcache"))

# Stale texts indexed per write transaction.
_INDEX_BATCH = 50_000


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a block sits: its document (path and durable key), unit and collections."""

    path: str
    doc_key: str
    unit: str
    position: int
    content_key: str
    collections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlockText:
    content_key: str
    locale: str
    text: str


class BlockCache:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reads -------------------------------------------------------------------------------

    def fingerprints(self) -> dict[str, str]:
        """Document path → fingerprint of what extraction last wrote for it."""
        with self.db.read() as conn:
            if not has_table(conn, "block_documents"):
                return {}
            rows = conn.execute("SELECT path, fingerprint FROM block_documents").fetchall()
        return {row["path"]: row["fingerprint"] for row in rows}

    def document_keys(self) -> dict[str, str]:
        """Document path → its durable key."""
        with self.db.read() as conn:
            if not has_table(conn, "block_documents"):
                return {}
            rows = conn.execute("SELECT path, doc_key FROM block_documents").fetchall()
        return {row["path"]: row["doc_key"] for row in rows}

    def block_count(self) -> int:
        with self.db.read() as conn:
            if not has_table(conn, "blocks"):
                return 0
            return int(conn.execute("SELECT count(*) FROM blocks").fetchone()[0])

    def placements(self, keys: Collection[str] | None = None) -> list[Placement]:
        """Every unit of every document (or of the blocks `keys`), in path and position order."""
        if keys is None:
            return self._placements("", ())
        return self._placements(
            "WHERE u.content_key IN (SELECT value FROM json_each(?)) ", (json.dumps(list(keys)),)
        )

    def placements_between(self, after: str, through: str | None) -> list[Placement]:
        """Every unit holding a block whose content key lies in (`after`, `through`]; an open
        `through` reaches the last key. A block's units all fall in one range, so a pass paging
        by ranges sees each block whole."""
        if through is None:
            return self._placements("WHERE u.content_key > ? ", (after,))
        return self._placements("WHERE u.content_key > ? AND u.content_key <= ? ", (after, through))

    def _placements(self, where: str, args: tuple[str, ...]) -> list[Placement]:
        with self.db.read() as conn:
            if not has_table(conn, "block_units"):
                return []
            rows = conn.execute(
                "SELECT u.path, d.doc_key, u.unit, u.position, u.content_key "
                f"FROM block_units u JOIN block_documents d USING (path) {where}"
                "ORDER BY u.path, u.position",
                args,
            ).fetchall()
            collections: dict[str, list[str]] = {}
            paths = json.dumps(sorted({row["path"] for row in rows}))
            for row in conn.execute(
                "SELECT path, collection FROM block_collections "
                "WHERE path IN (SELECT value FROM json_each(?)) ORDER BY 1, 2",
                (paths,),
            ):
                collections.setdefault(row["path"], []).append(row["collection"])
        return [
            Placement(
                path=row["path"],
                doc_key=row["doc_key"],
                unit=row["unit"],
                position=row["position"],
                content_key=row["content_key"],
                collections=tuple(collections.get(row["path"], [])),
            )
            for row in rows
        ]

    def content_keys(self, after: str, limit: int) -> list[str]:
        """The next `limit` content keys after `after`, in order: a page of the blocks."""
        with self.db.read() as conn:
            if not has_table(conn, "blocks"):
                return []
            rows = conn.execute(
                "SELECT content_key FROM blocks WHERE content_key > ? ORDER BY 1 LIMIT ?",
                (after, limit),
            ).fetchall()
        return [row[0] for row in rows]

    def text(self, content_key: str, locale: str = SOURCE) -> str | None:
        with self.db.read() as conn:
            if not has_table(conn, "block_texts"):
                return None
            row = conn.execute(
                "SELECT text FROM block_texts WHERE content_key = ? AND locale = ?",
                (content_key, canonical(locale)),
            ).fetchone()
        return None if row is None else str(row["text"])

    def unit_blocks(
        self, units: Collection[tuple[str, str]] | None = None
    ) -> dict[tuple[str, str], str]:
        """(durable document key, unit) → content key: how unit state finds its block; with
        `units`, only theirs."""
        sql = (
            "SELECT d.doc_key, u.unit, u.content_key "
            "FROM block_units u JOIN block_documents d USING (path)"
        )
        args: tuple[str, ...] = ()
        if units is not None:
            sql = (
                "SELECT d.doc_key, u.unit, u.content_key FROM json_each(?) j "
                "JOIN block_documents d ON d.doc_key = json_extract(j.value, '$[0]') "
                "JOIN block_units u ON u.path = d.path AND u.unit = json_extract(j.value, '$[1]')"
            )
            args = (json.dumps(list(units)),)
        with self.db.read() as conn:
            if not has_table(conn, "block_units"):
                return {}
            rows = conn.execute(sql, args).fetchall()
        return {(r[0], r[1]): r[2] for r in rows}

    def texts(self, keys: Collection[str] | None = None) -> list[BlockText]:
        """Every block text (or those of the blocks `keys`), by content key and locale."""
        where, args = "", ""
        if keys is not None:
            where = "WHERE content_key IN (SELECT value FROM json_each(?)) "
            args = json.dumps(list(keys))
        with self.db.read() as conn:
            if not has_table(conn, "block_texts"):
                return []
            rows = conn.execute(
                f"SELECT content_key, locale, text FROM block_texts {where}"
                "ORDER BY content_key, locale",
                (args,) if args else (),
            ).fetchall()
        return [BlockText(r["content_key"], r["locale"], r["text"]) for r in rows]

    def locales(self) -> list[str]:
        """The stored locale keys as written, canonical or not (for the drift report)."""
        with self.db.read() as conn:
            if not has_table(conn, "block_texts"):
                return []
            rows = conn.execute("SELECT DISTINCT locale FROM block_texts ORDER BY 1").fetchall()
        return [row[0] for row in rows]

    # -- extraction --------------------------------------------------------------------------

    def apply(
        self, changed: Iterable[Document], removed: Iterable[str], *, feed: bool = True
    ) -> set[str]:
        """Write changed documents and drop removed ones in one transaction.

        Returns the content keys whose block was written, changed or dropped; they are also
        added to the change feed (`changes`) that the graph materializer drains, unless
        `feed` is False: the caller knows the next graph pass is a full one, which reads
        every block and no feed.
        """
        changed = list(changed)
        paths = json.dumps([*removed, *(d.path for d in changed)])
        texts: dict[str, str] = {}
        with self.db.write() as conn:
            affected = {
                r[0]
                for r in conn.execute(
                    "SELECT content_key FROM block_units "
                    "WHERE path IN (SELECT value FROM json_each(?))",
                    (paths,),
                )
            }
            conn.execute(
                "DELETE FROM block_documents WHERE path IN (SELECT value FROM json_each(?))",
                (paths,),
            )
            for doc in changed:
                self._insert_document(conn, doc)
                for block in doc.blocks:
                    affected.add(block.content_key)
                    texts[block.content_key] = block.text
            self._refresh_blocks(conn, affected, texts)
            if feed:
                conn.executemany(
                    "INSERT OR IGNORE INTO block_changes (content_key) VALUES (?)",
                    [(k,) for k in affected],
                )
        return affected

    def changes(self) -> set[str]:
        """Content keys written, changed or dropped since `drain_changes` last took them."""
        with self.db.read() as conn:
            if not has_table(conn, "block_changes"):
                return set()
            return {r[0] for r in conn.execute("SELECT content_key FROM block_changes")}

    def change_count(self) -> int:
        """How many blocks the change feed holds, without reading them."""
        with self.db.read() as conn:
            if not has_table(conn, "block_changes"):
                return 0
            return int(conn.execute("SELECT count(*) FROM block_changes").fetchone()[0])

    def drain_changes(self, keys: Collection[str] | None = None) -> None:
        """The graph has looked at these blocks (None: at every block); forget them."""
        with self.db.write() as conn:
            if keys is None:
                conn.execute("DELETE FROM block_changes")
                return
            conn.execute(
                "DELETE FROM block_changes WHERE content_key IN (SELECT value FROM json_each(?))",
                (json.dumps(list(keys)),),
            )

    @staticmethod
    def _insert_document(conn: Connection, doc: Document) -> None:
        conn.execute(
            "INSERT INTO block_documents (path, doc_key, fingerprint) VALUES (?, ?, ?)",
            (doc.path, doc.key, doc.fingerprint),
        )
        conn.executemany(
            "INSERT INTO block_collections (path, collection) VALUES (?, ?)",
            [(doc.path, label) for label in doc.collections],
        )
        locales = {loc: canonical(loc) for b in doc.blocks for loc, _ in b.targets}
        conn.executemany(
            "INSERT INTO block_units (path, unit, position, content_key, targets) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (
                    doc.path,
                    b.unit,
                    position,
                    b.content_key,
                    json.dumps({locales[loc]: t for loc, t in b.targets}, sort_keys=True),
                )
                for position, b in enumerate(doc.blocks)
            ],
        )

    @staticmethod
    def _refresh_blocks(conn: Connection, keys: set[str], texts: dict[str, str]) -> None:
        """Recompute the touched blocks from the units holding them, as a rebuild would."""
        listed = json.dumps(sorted(keys))
        held: dict[str, list[str]] = {}
        for row in conn.execute(
            "SELECT content_key, targets FROM block_units "
            "WHERE content_key IN (SELECT value FROM json_each(?)) "
            "ORDER BY content_key, path, position",
            (listed,),
        ):
            held.setdefault(row[0], []).append(row[1])
        stored = {
            row[0]: row[1]
            for row in conn.execute(
                "SELECT content_key, payload FROM blocks "
                "WHERE content_key IN (SELECT value FROM json_each(?))",
                (listed,),
            )
        }
        for key in held:
            if key not in texts:
                texts[key] = str(json.loads(stored[key])["text"])
        payloads: list[tuple[str, str]] = []
        rows: list[tuple[str, str, str]] = []
        wanted_locales: list[tuple[str, str]] = []
        for key, units in held.items():
            # One wording may be translated differently in two documents: the first path
            # wins, which is what a rebuild in path order chooses too.
            targets: dict[str, str] = {}
            for unit in units:
                for locale, target in json.loads(unit).items():
                    targets.setdefault(locale, target)
            text = texts[key]
            payloads.append((key, json.dumps({"text": text, "targets": targets}, sort_keys=True)))
            wanted = {SOURCE: text, **targets}
            rows.extend((key, locale, value) for locale, value in wanted.items())
            if key in stored:  # a new block has no texts to drop
                wanted_locales.append((key, json.dumps(list(wanted))))
        gone = [(k,) for k in stored if k not in held]
        conn.executemany("DELETE FROM blocks WHERE content_key = ?", gone)
        conn.executemany("DELETE FROM block_texts WHERE content_key = ?", gone)
        conn.executemany(
            "INSERT INTO blocks (content_key, payload) VALUES (?, ?) "
            "ON CONFLICT (content_key) DO UPDATE SET payload = excluded.payload",
            payloads,
        )
        conn.executemany(
            "INSERT INTO block_texts (content_key, locale, text) VALUES (?, ?, ?) "
            "ON CONFLICT (content_key, locale) DO UPDATE SET text = excluded.text "
            "WHERE text <> excluded.text",
            rows,
        )
        conn.executemany(
            "DELETE FROM block_texts WHERE content_key = ? "
            "AND locale NOT IN (SELECT value FROM json_each(?))",
            wanted_locales,
        )

    # -- the occurrence index ----------------------------------------------------------------

    def reconcile_index(self, progress: Progress | None = None) -> int:
        """Bring the trigram index up to the table: forget retired texts, add stale ones.

        Returns how many rows it reconciled. A cold store has every text stale: indexing
        them in batches keeps each write transaction short, so other writers are not held
        at the gate behind all of it, and lets `progress` ("index", done, total) move.
        """
        with self.db.read() as conn:
            if not has_table(conn, "block_texts"):
                return 0
            retired, stale = conn.execute(
                "SELECT (SELECT count(*) FROM block_texts_retired), "
                "(SELECT count(*) FROM block_texts WHERE indexed = 0)"
            ).fetchone()
        total = retired + stale
        done = batches = 0
        if progress is not None:
            progress("index", 0, total)
        while done < total:
            step = self._index_batch()
            if not step:
                break  # another writer reconciled the rest
            done, batches = done + step, batches + 1
            if progress is not None and done < total:
                progress("index", done, total)
        if batches > 1:
            # Each batch left a segment of the index, and a search reads every segment:
            # after a bulk load, merging them pays for itself within the full pass's own
            # search, one per term.
            with self.db.write() as conn:
                conn.execute(
                    "INSERT INTO block_texts_trigram (block_texts_trigram) VALUES ('optimize')"
                )
        if progress is not None and total:
            progress("index", total, total)
        return done

    def _index_batch(self) -> int:
        """One transaction of reconciling: every retired text, then up to a batch of stale."""
        with self.db.write() as conn:
            # Retired rows go first, in the same transaction: a stale row may reuse the id
            # of a retired one, and the index holds one text per id.
            conn.execute(
                "INSERT INTO block_texts_trigram (block_texts_trigram, rowid, text) "
                "SELECT 'delete', id, text FROM block_texts_retired"
            )
            retired = conn.execute("DELETE FROM block_texts_retired").rowcount
            last = conn.execute(
                "SELECT max(id) FROM (SELECT id FROM block_texts WHERE indexed = 0 "
                "ORDER BY id LIMIT ?)",
                (_INDEX_BATCH,),
            ).fetchone()[0]
            if last is None:
                return int(retired)
            conn.execute(
                "INSERT INTO block_texts_trigram (rowid, text) "
                "SELECT id, text FROM block_texts WHERE indexed = 0 AND id <= ?",
                (last,),
            )
            stale = conn.execute(
                "UPDATE block_texts SET indexed = 1 WHERE indexed = 0 AND id <= ?", (last,)
            ).rowcount
        return int(retired + stale)

    def candidates(self, needle: str, locale: str) -> list[BlockText]:
        """Texts in one locale that may contain `needle`: the index narrows, it never decides.

        The index must be reconciled first. Needles under three characters have no trigram,
        so the locale's texts are scanned instead.
        """
        with self.db.read() as conn:
            if not has_table(conn, "block_texts"):
                return []
            if len(needle) < 3:
                rows = conn.execute(
                    "SELECT content_key, locale, text FROM block_texts WHERE locale = ?",
                    (canonical(locale),),
                ).fetchall()
            else:
                phrase = '"' + needle.replace('"', '""') + '"'
                rows = conn.execute(
                    "SELECT t.content_key, t.locale, t.text FROM block_texts_trigram f "
                    "JOIN block_texts t ON t.id = f.rowid "
                    "WHERE block_texts_trigram MATCH ? AND t.locale = ?",
                    (phrase, canonical(locale)),
                ).fetchall()
        return [BlockText(r["content_key"], r["locale"], r["text"]) for r in rows]
