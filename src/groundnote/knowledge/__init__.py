"""Knowledge records: files in a bound checkout, their index, reference resolution, validator.

The capabilities live in `groundnote.knowledge.capabilities` (imported by the runtime), so
that `groundnote.config` can import this package's config without importing the registry.
"""

from groundnote.knowledge.config import KnowledgeConfig
from groundnote.knowledge.index import IndexReport, Progress
from groundnote.knowledge.service import rebuild
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("knowledge", load_migrations("groundnote.knowledge", "knowledge"))

__all__ = ["SUBSYSTEM", "IndexReport", "KnowledgeConfig", "Progress", "rebuild"]
