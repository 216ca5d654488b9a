"""Knowledge records: files in a bound checkout, their index, reference resolution, validator."""

from groundnote.knowledge.capabilities import CAPABILITIES
from groundnote.knowledge.index import IndexReport, Progress
from groundnote.knowledge.service import rebuild
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("knowledge", load_migrations("groundnote.knowledge", "knowledge"))

__all__ = ["CAPABILITIES", "SUBSYSTEM", "IndexReport", "Progress", "rebuild"]
