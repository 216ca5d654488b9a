"""Structure: the approval channel's writers for the graph — reviews and archive — and what
the approval pages read.

Imported only by the approval routes of `surfaces/http` and by `surfaces/web` (AT2); its
capabilities are served on the approval channel only, never on MCP (G7, AT4).
"""

from typing import Any

from groundnote.capabilities import Capability
from groundnote.structure.archive import ARCHIVE
from groundnote.structure.models import (
    ArchiveAnswer,
    ArchiveInput,
    EntityState,
    LinkState,
    ReviewAnswer,
    ReviewOut,
    ReviewRequest,
)
from groundnote.structure.reviews import REVIEW
from groundnote.structure.state import PENDING_LINKS_SQL, PENDING_VERSIONS_SQL, approval_url
from groundnote.structure.versions import scope_of
from groundnote.structure.views import (
    ChangeView,
    Counts,
    EndView,
    EntityItem,
    LinkItem,
    RuleView,
    counts,
    pending_items,
    proposed_rules,
    rule_view,
)

CAPABILITIES: list[Capability[Any, Any]] = [REVIEW, ARCHIVE]

__all__ = [
    "ARCHIVE",
    "CAPABILITIES",
    "PENDING_LINKS_SQL",
    "PENDING_VERSIONS_SQL",
    "REVIEW",
    "ArchiveAnswer",
    "ArchiveInput",
    "ChangeView",
    "Counts",
    "EndView",
    "EntityItem",
    "EntityState",
    "LinkItem",
    "LinkState",
    "ReviewAnswer",
    "ReviewOut",
    "ReviewRequest",
    "RuleView",
    "approval_url",
    "counts",
    "pending_items",
    "proposed_rules",
    "rule_view",
    "scope_of",
]
