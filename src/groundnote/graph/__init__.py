"""Graph: the versioned entity tree per scope, trigram resolve, links and agent guidance.

Public face for other subsystems (core's search bundles): the entities linked to a rule
counted per G5, the path of an entity, and the descendants of an entity via the closure; and
for the composition root the bundle groups, `head.entities` and search's entity filter.
"""

from groundnote.graph import transfer
from groundnote.graph.bundles import GROUP_PROVIDERS, entity_filter, head_entities
from groundnote.graph.capabilities import CAPABILITIES
from groundnote.graph.closure import closure_drift, rebuild_closure
from groundnote.graph.counters import counter_drift, rebuild_counters
from groundnote.graph.fts import fts_drift, rebuild_fts, rebuild_index
from groundnote.graph.grouped import LinkedEntity, entities_linked_to_rule
from groundnote.graph.links import counted, read_link
from groundnote.graph.models import LinkOut
from groundnote.graph.name_vectors import name_vector_drift, rebuild_name_vectors
from groundnote.graph.normalize import normalize
from groundnote.graph.prompts import PROMPTS
from groundnote.graph.queries import (
    PENDING_LINKS_SQL,
    PENDING_VERSIONS_SQL,
    descendant_ids,
    path_items,
    pending_counts,
)
from groundnote.graph.trigram import has_room as resolve_has_room
from groundnote.graph.trigram import index_for
from groundnote.graph.trigram import set_budget as set_resolve_budget
from groundnote.store import Database, Subsystem, load_migrations


def projection_drift(db: Database) -> list[str]:
    """`groundnote check`'s view of the graph: each projection against its rebuild."""
    with db.read() as conn:
        row = conn.execute("SELECT scope FROM meta").fetchone()
    scope = str(row[0]) if row is not None and row[0] else "SCOPE"
    return closure_drift(db, scope) + fts_drift(db, scope) + counter_drift(db, scope)


SUBSYSTEM = Subsystem(
    "graph",
    load_migrations("groundnote.graph", "graph"),
    check=projection_drift,
    pending=pending_counts,
)


def warm_resolve(db: Database) -> None:
    """Build the scope's resolve index ahead of its first query (3.5 s at 100,000 entities)."""
    index_for(db).warm()


__all__ = [
    "CAPABILITIES",
    "GROUP_PROVIDERS",
    "PENDING_LINKS_SQL",
    "PENDING_VERSIONS_SQL",
    "PROMPTS",
    "SUBSYSTEM",
    "LinkOut",
    "LinkedEntity",
    "counted",
    "descendant_ids",
    "entities_linked_to_rule",
    "entity_filter",
    "head_entities",
    "name_vector_drift",
    "normalize",
    "path_items",
    "pending_counts",
    "read_link",
    "rebuild_closure",
    "rebuild_counters",
    "rebuild_fts",
    "rebuild_index",
    "rebuild_name_vectors",
    "resolve_has_room",
    "set_resolve_budget",
    "transfer",
    "warm_resolve",
]
