"""The graph's truth tables as an export carries them (the engine is store/transfer.py).

Exported: `entity`, `link` (ended ones with their `valid_to`), `entity_version` (every
version) and `review`. Rebuilt, not exported: `entity_closure` and `entity_fts` (`finish`
recomputes both from entity_current), and every process's resolve index, which the change
record tells to re-read everything.

The order is the one in which the tables' triggers accept the rows without the history's
interleaving: all heads first; links next, while no entity has a version yet, so none is
archived; then the versions, every version that leaves its entity archived (an archive, or the
revert of a never-confirmed create) after all others (archived is terminal, so each entity's
versions stay in order), so no version meets an archived parent. The closure fills at the end, so the cycle and has-children backstops, which read
it, see nothing during the import: the rows passed them when they were first written.
"""

from __future__ import annotations

from groundnote.graph.closure import fill_closure
from groundnote.graph.counters import fill_counters
from groundnote.graph.fts import fill_fts
from groundnote.store.sql import Connection
from groundnote.store.transfer import Table

__all__ = ["TABLES", "finish"]

TABLES = (
    Table("entity", order="seq", ids=("id",), owner_column="scope"),
    Table("link", order="seq", ids=("id", "from_ref", "to_ref")),
    Table(
        "entity_version",
        order="CASE WHEN status = 'archived' THEN 1 ELSE 0 END, "
        "(SELECT e.seq FROM entity e WHERE e.id = entity_version.id), version",
        ids=("id", "parent_id"),
    ),
    Table("review", order="seq", ids=("id", "target")),
)


def finish(conn: Connection) -> None:
    fill_closure(conn)
    fill_fts(conn)
    fill_counters(conn)
