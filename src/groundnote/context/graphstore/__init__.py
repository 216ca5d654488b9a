"""The graph subsystem (`graph_nodes`, `graph_edges`), reached only through `GraphStore`."""

from groundnote.context.graphstore.store import SUBSYSTEM, GraphStore, Owned

__all__ = ["SUBSYSTEM", "GraphStore", "Owned"]
