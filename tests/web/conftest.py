"""The approval pages reuse the approval channel's fixtures, plus a real uvicorn for Chromium."""

from tests.structure.conftest import agent_writes, approver, graph_tables, ruth, web
from tests.surfaces.conftest import live_server

__all__ = ["agent_writes", "approver", "graph_tables", "live_server", "ruth", "web"]
