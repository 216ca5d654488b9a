"""Surfaces derived from the capability registry: MCP, HTTP, CLI and the approval pages."""
