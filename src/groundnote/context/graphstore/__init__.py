"""The graph subsystem (`graph_nodes`, `graph_edges`), reached only through `GraphStore`."""

from groundnote.context.graphstore.store import SUBSYSTEM, GraphStore

__all__ = ["SUBSYSTEM", "GraphStore"]
