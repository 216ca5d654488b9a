"""The current row of every entity of a scope, held in memory beside the recall index.

Resolve answers with each candidate's name, aliases, type, status, depth and path, and orders
equal scores by status and depth. Read from the store, that took a query for the candidates'
rows and another for their paths: on PostgreSQL at 100,000 entities, where a run of 46 names
ties for fifth place, about 2 ms of a 7 ms resolve, nearly all of it looking up each entity's
current version. The recall index already holds every entity's texts and follows the change
record, so it holds these rows too: a candidate's depth and path come from the parent chain,
which also keeps them right after a move without re-reading the moved subtree.

A row changes only with a new version of its entity, and every version records the entity's
seq in the change record in its transaction (`trigram.note_version`, and fts's text writes).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import NamedTuple

from groundnote.domain.guidance import PathItem
from groundnote.store.sql import Row

__all__ = ["ALL_CURRENT_SQL", "CURRENT_SQL", "Current", "Held", "current", "held"]

# Entities' current rows with their parent's seq (0 at the top level); the callers add a WHERE
# on e.seq, which looks up each entity's newest version.
CURRENT_SQL = (
    "SELECT e.seq, k.id, k.type, k.name, k.aliases, k.status, coalesce(p.seq, 0) "
    "FROM entity e JOIN entity_current k ON k.id = e.id LEFT JOIN entity p ON p.id = k.parent_id"
)
# Every entity's: the newest versions grouped in one pass, where a lookup per entity took
# PostgreSQL twice as long (0.41 against 0.20 s server time at 100,000; SQLite the same).
ALL_CURRENT_SQL = (
    "SELECT e.seq, v.id, v.type, v.name, v.aliases, v.status, coalesce(p.seq, 0) "
    "FROM entity e JOIN (SELECT id, max(version) AS version FROM entity_version GROUP BY id) m "
    "ON m.id = e.id JOIN entity_version v ON v.id = m.id AND v.version = m.version "
    "LEFT JOIN entity p ON p.id = v.parent_id"
)

# The index holds one committed state, in which the cycle trigger leaves no loop and
# structure.max_depth bounds the depth far below this: the bound only keeps a defect from
# hanging the server.
_MAX_CHAIN = 1000


class Held(NamedTuple):
    """One entity's current row as the index holds it: aliases as stored (JSON), the parent
    by seq (0: top level)."""

    id: str
    type: str
    name: str
    aliases: str
    status: str
    parent: int


def held(row: Row) -> tuple[int, Held]:
    """(seq, row) from a row of CURRENT_SQL. The few distinct types and statuses, and the
    empty alias list most entities have, are shared rather than held 100,000 times."""
    aliases = row[4]
    return row[0], Held(
        row[1],
        sys.intern(row[2]),
        row[3],
        sys.intern(aliases) if aliases == "[]" else aliases,
        sys.intern(row[5]),
        row[6],
    )


@dataclass(frozen=True)
class Current:
    """An entity as resolve answers with it: its current row and the rows from the top level
    down to itself (`chain`)."""

    seq: int
    id: str
    type: str
    name: str
    aliases: list[str]
    status: str
    parent_id: str | None
    chain: tuple[Held, ...]

    @property
    def level(self) -> int:
        """1 at the top level."""
        return len(self.chain)

    def trail(self) -> list[PathItem]:
        """The path from the top level down to the entity itself."""
        return [PathItem(id=at.id, name=at.name, type=at.type) for at in self.chain]


def current(rows: dict[int, Held], seq: int) -> Current | None:
    """Entity `seq` with its chain, from `rows`; None for a seq it does not hold."""
    own = rows.get(seq)
    if own is None:
        return None
    chain = [own]
    # Every parent is held: an entity is never deleted, and a parent and the child a write
    # adds under it commit, and are re-read, together.
    while chain[-1].parent and len(chain) < _MAX_CHAIN:
        chain.append(rows[chain[-1].parent])
    return Current(
        seq=seq,
        id=own.id,
        type=own.type,
        name=own.name,
        aliases=json.loads(own.aliases),
        status=own.status,
        parent_id=chain[1].id if len(chain) > 1 else None,
        chain=tuple(reversed(chain)),
    )
