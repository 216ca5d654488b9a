"""Core: sources, attachments, rules, approval modes, search and bundles, provenance, export."""

from typing import Any

from groundnote.capabilities import Capability
from groundnote.core.bundles import (
    CORE_GROUPS,
    GROUP_ORDER,
    Bundle,
    BundleContext,
    Entry,
    Group,
    GroupKind,
    GroupProvider,
    Head,
    HeadEnricher,
    HeadEntity,
    HeadPathItem,
)
from groundnote.core.feedback import FEEDBACK
from groundnote.core.fts import rebuild_fts
from groundnote.core.mail_import import MailImportReport, import_mail, parse_mail_files
from groundnote.core.propose import PROPOSE_RULE, RULE_RETRACT
from groundnote.core.reading import LIST_PROPOSALS, LIST_REJECTED, LIST_RULES, PROVENANCE, READ_RULE
from groundnote.core.rules import RuleAnswer, RuleOut, rule_answer
from groundnote.core.search import SEARCH, EntityFilter, HeadRestriction, SearchComposition
from groundnote.core.sources import STORE_SOURCE, StoreSourceInput
from groundnote.core.status import LIST_SCOPES, STATUS, approval_mode, proposed_rule_count
from groundnote.core.transfer import EXPORT, IMPORT, export_lines, import_lines
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem(
    "core", load_migrations("groundnote.core", "core"), pending=proposed_rule_count
)
CAPABILITIES: list[Capability[Any, Any]] = [
    LIST_SCOPES,
    STATUS,
    SEARCH,
    READ_RULE,
    PROVENANCE,
    PROPOSE_RULE,
    STORE_SOURCE,
    FEEDBACK,
    RULE_RETRACT,
    LIST_RULES,
    LIST_PROPOSALS,
    LIST_REJECTED,
    EXPORT,
    IMPORT,
]

__all__ = [
    "CAPABILITIES",
    "CORE_GROUPS",
    "GROUP_ORDER",
    "SUBSYSTEM",
    "Bundle",
    "BundleContext",
    "EntityFilter",
    "Entry",
    "Group",
    "GroupKind",
    "GroupProvider",
    "Head",
    "HeadEnricher",
    "HeadEntity",
    "HeadPathItem",
    "HeadRestriction",
    "MailImportReport",
    "RuleAnswer",
    "RuleOut",
    "SearchComposition",
    "StoreSourceInput",
    "approval_mode",
    "export_lines",
    "import_lines",
    "import_mail",
    "parse_mail_files",
    "rebuild_fts",
    "rule_answer",
]
