"""The approval pages reuse the approval channel's fixtures, plus a real uvicorn for Chromium."""

from tests.structure.conftest import agent_writes, approver, ruth, web
from tests.surfaces.conftest import live_server

__all__ = ["agent_writes", "approver", "live_server", "ruth", "web"]
