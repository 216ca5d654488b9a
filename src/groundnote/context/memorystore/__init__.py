"""The content-memory subsystem, reached only through `MemoryStore`."""

from groundnote.context.memorystore.store import SUBSYSTEM, MemoryStore

__all__ = ["SUBSYSTEM", "MemoryStore"]
