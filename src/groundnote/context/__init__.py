"""The context store and graph of a content project (seed 002, DESIGN §12).

One derived file per project, `.groundnote/work/store.db`, shared by the block cache, the
terms store, the unit-state working set and the property graph, each behind its own module
and migration ledger. The capabilities are served on the command line only until projects are bound to scopes.
"""

from groundnote.context.capabilities import CAPABILITIES

__all__ = ["CAPABILITIES"]
