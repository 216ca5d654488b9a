"""Core: sources, attachments, rules, approval modes, search and bundles, provenance, export."""

from typing import Any

from groundnote.capabilities import Capability
from groundnote.core.status import LIST_SCOPES, STATUS, approval_mode
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("core", load_migrations("groundnote.core", "core"))
CAPABILITIES: list[Capability[Any, Any]] = [LIST_SCOPES, STATUS]

__all__ = ["CAPABILITIES", "SUBSYSTEM", "approval_mode"]
