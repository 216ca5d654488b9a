"""The unit-state working set, reached only through `WorkingSet`."""

from groundnote.context.workingset.store import SUBSYSTEM, WorkingSet

__all__ = ["SUBSYSTEM", "WorkingSet"]
