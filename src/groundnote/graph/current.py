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

The rows are held by column, indexed by seq: a parent, a status and a type code in arrays, the
id and name in lists, aliases only where an entity has some. A tuple per entity in a dict took
32 MB per 100,000 entities beside the index's 44 MB; by column they take 15.6 MB.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from groundnote.domain.guidance import PathItem
from groundnote.store.sql import Row

__all__ = ["ALL_CURRENT_SQL", "CURRENT_SQL", "Current", "Rows"]

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

# Status codes; 0 marks a seq without an entity.
_STATUSES = ("", "active", "unconfirmed", "archived")
_STATUS_CODES = {status: code for code, status in enumerate(_STATUSES) if status}
# The index holds one committed state, in which the cycle trigger leaves no loop and
# structure.max_depth bounds the depth far below this: the bound only keeps a defect from
# hanging the server.
_MAX_CHAIN = 1000


@dataclass(frozen=True)
class Current:
    """An entity as resolve answers with it: its current row and the (id, name, type) of each
    entity from the top level down to itself (`chain`)."""

    seq: int
    id: str
    type: str
    name: str
    aliases: list[str]
    status: str
    parent_id: str | None
    chain: tuple[tuple[str, str, str], ...]

    @property
    def level(self) -> int:
        """1 at the top level."""
        return len(self.chain)

    def trail(self) -> list[PathItem]:
        """The path from the top level down to the entity itself."""
        return [PathItem(id=id, name=name, type=type) for id, name, type in self.chain]


class Rows:
    """Every entity's current row by seq (rows of CURRENT_SQL). Not thread-safe by itself:
    the index calls it under its lock."""

    def __init__(self) -> None:
        self._ids: list[str | None] = [None]
        self._names: list[str | None] = [None]
        self._parents = array("i", [0])
        self._statuses = bytearray(1)
        self._types = array("I", [0])
        self._type_names: list[str] = [""]
        self._type_codes: dict[str, int] = {}
        self._aliases: dict[int, str] = {}  # seq → JSON list, for the entities that have some

    def put(self, rows: Iterable[Row]) -> None:
        """Take in rows of CURRENT_SQL, each replacing what was held for its seq."""
        for seq, id, type, name, aliases, status, parent in rows:
            if seq >= len(self._ids):
                self._grow(max(seq + 1, 2 * len(self._ids)))
            self._ids[seq], self._names[seq] = id, name
            self._parents[seq] = parent
            self._statuses[seq] = _STATUS_CODES[status]
            self._types[seq] = self._type_code(type)
            if aliases == "[]":
                self._aliases.pop(seq, None)
            else:
                self._aliases[seq] = aliases

    def drop(self, seq: int) -> None:
        if seq < len(self._ids):
            self._ids[seq] = self._names[seq] = None
            self._statuses[seq] = 0
            self._aliases.pop(seq, None)

    def get(self, seq: int) -> Current | None:
        """Entity `seq` with its chain; None for a seq it does not hold."""
        if seq >= len(self._ids) or not self._statuses[seq]:
            return None
        chain = [self._link(seq)]
        parent = at = self._parents[seq]
        # Every parent is held: an entity is never deleted, and a parent and the child a write
        # adds under it commit, and are re-read, together.
        while at and len(chain) < _MAX_CHAIN:
            chain.append(self._link(at))
            at = self._parents[at]
        return Current(
            seq=seq,
            id=chain[0][0],
            type=chain[0][2],
            name=chain[0][1],
            aliases=json.loads(self._aliases.get(seq, "[]")),
            status=_STATUSES[self._statuses[seq]],
            parent_id=chain[1][0] if parent else None,
            chain=tuple(reversed(chain)),
        )

    def _link(self, seq: int) -> tuple[str, str, str]:
        id, name = self._ids[seq], self._names[seq]
        if id is None or name is None:
            raise LookupError(f"the resolve index holds no entity {seq}")
        return id, name, self._type_names[self._types[seq]]

    def _type_code(self, type: str) -> int:
        code = self._type_codes.get(type)
        if code is None:
            code = self._type_codes[type] = len(self._type_names)
            self._type_names.append(type)
        return code

    def _grow(self, capacity: int) -> None:
        more = capacity - len(self._ids)
        self._ids.extend([None] * more)
        self._names.extend([None] * more)
        self._parents.extend([0] * more)
        self._statuses.extend(bytes(more))
        self._types.extend([0] * more)
