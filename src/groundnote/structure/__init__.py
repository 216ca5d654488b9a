"""Structure: the approval channel's writers for the graph — reviews and archive — and the
reads behind the approval pages.

Imported only by the approval routes of `surfaces/http` and by `surfaces/web` (AT2); its
capabilities are served on the approval channel only, never on MCP (G7, AT4).
"""

from groundnote.structure.capabilities import CAPABILITIES
from groundnote.structure.models import (
    PAGE_SIZE,
    ArchiveAnswer,
    ArchiveInput,
    EntityState,
    Overview,
    PendingPage,
    ProposalsPage,
    ReviewAnswer,
    ReviewOut,
    ReviewRequest,
    RuleView,
    SourceView,
)
from groundnote.structure.state import PENDING_LINKS_SQL, PENDING_VERSIONS_SQL, approval_url

__all__ = [
    "CAPABILITIES",
    "PAGE_SIZE",
    "PENDING_LINKS_SQL",
    "PENDING_VERSIONS_SQL",
    "ArchiveAnswer",
    "ArchiveInput",
    "EntityState",
    "Overview",
    "PendingPage",
    "ProposalsPage",
    "ReviewAnswer",
    "ReviewOut",
    "ReviewRequest",
    "RuleView",
    "SourceView",
    "approval_url",
]
