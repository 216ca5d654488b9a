"""Knowledge records: files in a bound checkout, their index, reference resolution, validator."""

from groundnote.knowledge.capabilities import CAPABILITIES
from groundnote.knowledge.index import IndexReport, Progress
from groundnote.knowledge.service import rebuild
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("knowledge", load_migrations("groundnote.knowledge", "knowledge"))
# The index's tables: a projection of the bound checkout (rebuilt from it by
# `groundnote rebuild knowledge`), which a move of the store keeps as it is.
INDEX_TABLES = (
    "knowledge_meta",
    "knowledge_source_file",
    "knowledge_record",
    "knowledge_problem",
    "knowledge_ledger",
    "knowledge_object",
    "knowledge_commit",
    "knowledge_history",
)

__all__ = ["CAPABILITIES", "INDEX_TABLES", "SUBSYSTEM", "IndexReport", "Progress", "rebuild"]
