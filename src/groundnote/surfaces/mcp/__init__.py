"""MCP: tools and prompts from the registry, over stdio and streamable HTTP."""

from groundnote.surfaces.mcp.server import PrincipalResolver, build_server, error_result

__all__ = ["PrincipalResolver", "build_server", "error_result"]
