"""Core: sources, attachments, rules, approval modes, search and bundles, provenance, export."""

from groundnote.core import transfer
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
from groundnote.core.capabilities import CAPABILITIES
from groundnote.core.dates import impossible_dates
from groundnote.core.fts import rebuild_fts
from groundnote.core.mail_import import MailImportReport, import_mail, parse_mail_files
from groundnote.core.models import StoreSourceInput
from groundnote.core.rules import RuleAnswer, RuleOut, rule_answer
from groundnote.core.search import EntityFilter, HeadRestriction, SearchComposition
from groundnote.core.status import approval_mode, proposed_rule_count
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem(
    "core",
    load_migrations("groundnote.core", "core"),
    check=impossible_dates,
    pending=proposed_rule_count,
)

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
    "import_mail",
    "parse_mail_files",
    "rebuild_fts",
    "rule_answer",
    "transfer",
]
