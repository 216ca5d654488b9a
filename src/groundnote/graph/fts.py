"""entity_fts, the durable trigram index of normalised names (seed 000 §3.2, AT5).

The only module that writes entity_fts: rowid = entity.seq; `name` is normalize(name) and
`aliases` the normalised aliases joined by `|`. Each write records the row's seq in the store's
change record (same transaction), from which every process's in-memory recall index
(graph/trigram.py) catches up before it answers; after a commit the writer calls `published`
so this process's index takes the change in at once instead of on its next read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from groundnote.graph.normalize import normalize, trigrams
from groundnote.graph.trigram import CHANGE_KIND, index_for
from groundnote.store import Database, changes

__all__ = ["literal_recall", "published", "put_text", "rebuild_fts", "remove_text"]


def put_text(conn: sqlite3.Connection, seq: int, name: str, aliases: Iterable[str]) -> None:
    """Store the normalised texts of an entity's current version (inside the write)."""
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
    conn.execute(
        "INSERT INTO entity_fts (rowid, name, aliases) VALUES (?, ?, ?)",
        (seq, normalize(name), "|".join(normalize(a) for a in aliases)),
    )
    changes.record(conn, CHANGE_KIND, str(seq))


def remove_text(conn: sqlite3.Connection, seq: int) -> None:
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
    changes.record(conn, CHANGE_KIND, str(seq))


def published(db: Database) -> None:
    """After the commit: bring this process's index in step with what the change record names
    (this write's entities, and whatever other processes committed meanwhile)."""
    index_for(db).catch_up()


def rebuild_fts(db: Database) -> int:
    """Recompute entity_fts from entity_current; returns how many entities it holds."""
    with db.write() as conn:
        conn.execute("DELETE FROM entity_fts")
        rows = conn.execute(
            "SELECT e.seq, k.name, k.aliases FROM entity e JOIN entity_current k ON k.id = e.id"
        ).fetchall()
        for row in rows:
            aliases = [str(a) for a in _json_list(row["aliases"])]
            put_text(conn, row["seq"], row["name"], aliases)
        # Every process re-reads all of it, instead of one change row per entity.
        changes.record(conn, CHANGE_KIND, changes.EVERYTHING)
    return len(rows)


def literal_recall(conn: sqlite3.Connection, key: str, limit: int = 50) -> list[int]:
    """The seed's recall (§5.2 step 3): every trigram quoted, OR-ed, ORDER BY rank.

    Kept for the benchmark's comparison; user text reaches MATCH only as quoted phrases.
    """
    grams = sorted(trigrams(key))
    if not grams:
        return []
    query = " OR ".join('"' + g.replace('"', '""') + '"' for g in grams)
    rows = conn.execute(
        "SELECT rowid FROM entity_fts WHERE entity_fts MATCH ? ORDER BY rank LIMIT ?",
        (query, limit),
    ).fetchall()
    return [r[0] for r in rows]


def _json_list(text: str) -> list[object]:
    value = json.loads(text)
    return value if isinstance(value, list) else []
