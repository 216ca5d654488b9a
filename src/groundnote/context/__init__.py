"""The context store and graph of a content project (seed 002, DESIGN §12).

One derived file per project, `.groundnote/work/store.db`, shared by the block cache, the
terms store, the unit-state working set and the property graph, each behind its own module
and migration ledger. The instance holds which projects are bound to which scope and the
rollup of their published graphs; agents reach a project through its scope only.
"""

from groundnote.context import bindings, rollup
from groundnote.context.capabilities import CAPABILITIES

INSTANCE_SUBSYSTEMS = [bindings.SUBSYSTEM, rollup.SUBSYSTEM]

__all__ = ["CAPABILITIES", "INSTANCE_SUBSYSTEMS"]
