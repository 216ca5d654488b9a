"""HTTP: the API routes derived from the registry, the approval routes, MCP mounted at /mcp."""

from groundnote.surfaces.http.app import create_app

__all__ = ["create_app"]
