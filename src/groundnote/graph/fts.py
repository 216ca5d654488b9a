"""entity_fts, the durable trigram index of normalised names (seed 000 §3.2, AT5).

The only module that writes entity_fts: rowid = entity.seq; `name` is normalize(name) and
`aliases` the normalised aliases joined by `|`. Each write records the row's seq in the store's
change record (same transaction), from which every process's in-memory recall index
(graph/trigram.py) catches up before it answers; this process's own index follows the store
unit, so it takes the change in with the write's COMMIT (`TrigramIndex.before_commit`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from groundnote.graph.normalize import normalize, trigrams
from groundnote.graph.trigram import CHANGE_KIND, index_for
from groundnote.store import Database, changes
from groundnote.store.sql import Connection

__all__ = [
    "add_text",
    "fill_fts",
    "fts_drift",
    "literal_recall",
    "put_text",
    "rebuild_fts",
    "rebuild_index",
    "remove_text",
]


def put_text(conn: Connection, seq: int, name: str, aliases: Iterable[str]) -> None:
    """Store the normalised texts of an entity's current version (inside the write)."""
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
    add_text(conn, seq, name, aliases)


def add_text(conn: Connection, seq: int, name: str, aliases: Iterable[str]) -> None:
    """`put_text` for a new entity, whose seq has no row yet."""
    conn.execute(
        "INSERT INTO entity_fts (rowid, name, aliases) VALUES (?, ?, ?)",
        (seq, normalize(name), "|".join(normalize(a) for a in aliases)),
    )
    changes.record(conn, CHANGE_KIND, str(seq))


def remove_text(conn: Connection, seq: int) -> None:
    conn.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
    changes.record(conn, CHANGE_KIND, str(seq))


def fill_fts(conn: Connection) -> int:
    """Recompute entity_fts from entity_current inside the caller's write; how many entities."""
    conn.execute("DELETE FROM entity_fts")
    rows = conn.execute(
        "SELECT e.seq, k.name, k.aliases FROM entity e JOIN entity_current k ON k.id = e.id"
    ).fetchall()
    # one statement for them all: on PostgreSQL an INSERT per entity was a third of an import
    conn.insert_rows(
        "entity_fts",
        ("rowid", "name", "aliases"),
        [(row["seq"], normalize(row["name"]), _joined(row["aliases"])) for row in rows],
    )
    # Every process re-reads all of it, instead of one change row per entity.
    changes.record(conn, CHANGE_KIND, changes.EVERYTHING)
    return len(rows)


def rebuild_fts(db: Database) -> int:
    """Recompute entity_fts from entity_current; returns how many entities it holds."""
    with db.write() as conn:
        return fill_fts(conn)


def rebuild_index(db: Database) -> int:
    """Make every process rebuild its in-memory resolve index from entity_fts (this one at
    once); returns how many entities it holds. For an index that answers oddly: it is never
    written by hand, so only a bug makes it drift, and `check` cannot see another process's
    memory."""
    with db.write() as conn:
        changes.record(conn, CHANGE_KIND, changes.EVERYTHING)
    index = index_for(db)
    index.reset()
    index.warm()
    return len(index)


def fts_drift(db: Database, scope: str) -> list[str]:
    """How entity_fts differs from what entity_current's names and aliases give (none: equal)."""
    with db.read() as conn:
        want = {
            (row["seq"], normalize(row["name"]), _joined(row["aliases"]))
            for row in conn.execute(
                "SELECT e.seq, k.name, k.aliases FROM entity e JOIN entity_current k ON k.id = e.id"
            )
        }
        have = {
            (r[0], r[1], r[2]) for r in conn.execute("SELECT rowid, name, aliases FROM entity_fts")
        }
    remedy = f"run `groundnote rebuild fts --scope {scope}`"
    problems = []
    if want - have:
        problems.append(f"entity_fts lacks or misspells {len(want - have)} entities; {remedy}")
    if have - want:
        problems.append(f"entity_fts holds {len(have - want)} rows no entity gives; {remedy}")
    return problems


def _joined(aliases: str) -> str:
    return "|".join(normalize(str(a)) for a in _json_list(aliases))


def literal_recall(conn: Connection, key: str, limit: int = 50) -> list[int]:
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
