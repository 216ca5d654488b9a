"""Graph: the versioned entity tree per scope, trigram resolve, links and agent guidance.

Public face for other subsystems (core's search bundles): the entities linked to a rule
counted per G5, the path of an entity, and the descendants of an entity via the closure.
"""

from groundnote.graph.capabilities import CAPABILITIES
from groundnote.graph.closure import rebuild_closure
from groundnote.graph.fts import rebuild_fts
from groundnote.graph.grouped import LinkedEntity, entities_linked_to_rule
from groundnote.graph.links import counted
from groundnote.graph.normalize import normalize
from groundnote.graph.prompts import PROMPTS
from groundnote.graph.queries import descendant_ids, path_items
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("graph", load_migrations("groundnote.graph", "graph"))

__all__ = [
    "CAPABILITIES",
    "PROMPTS",
    "SUBSYSTEM",
    "LinkedEntity",
    "counted",
    "descendant_ids",
    "entities_linked_to_rule",
    "normalize",
    "path_items",
    "rebuild_closure",
    "rebuild_fts",
]
