"""entity_fts, the durable trigram index of normalised names (seed 000 §3.2, AT5).

The only module that writes entity_fts: rowid = entity.seq; `name` is normalize(name) and
`aliases` the normalised aliases joined by `|`. After a commit the writer calls `published`
so the in-memory recall index (graph/trigram.py) re-reads what changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from groundnote.graph.normalize import normalize, trigrams
from groundnote.graph.trigram import index_for
from groundnote.store import Database

__all__ = ["literal_recall", "published", "put_text", "rebuild_fts", "remove_text"]


def put_text(conn: sqlite3.Connection, seq: int, name: str, aliases: Iterable[str]) -> None:
    """Store the normalised texts of an entity's current version (inside the write)."""
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
    conn.execute(
        "INSERT INTO entity_fts (rowid, name, aliases) VALUES (?, ?, ?)",
        (seq, normalize(name), "|".join(normalize(a) for a in aliases)),
    )


def remove_text(conn: sqlite3.Connection, seq: int) -> None:
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))


def published(db: Database, seqs: Iterable[int]) -> None:
    """After the commit: bring the in-memory index in step with these entities."""
    index_for(db).refresh(seqs)


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
    index_for(db).reset()
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
