"""The block cache subsystem: its tables are reached only through `BlockCache`."""

from groundnote.context.blockcache.store import SUBSYSTEM, BlockCache, BlockText, Placement

__all__ = ["SUBSYSTEM", "BlockCache", "BlockText", "Placement"]
