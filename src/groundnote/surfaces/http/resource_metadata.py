"""OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint.

An MCP client that gets 401 looks here to learn how to authenticate. Groundnote takes a bearer
token in the Authorization header and runs no authorization server, so the metadata names
none: a spec-following client learns that a bearer token in the header is expected instead of
starting an OAuth flow that cannot succeed (the 401's body says how to get a token).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import Scope

from groundnote.config import Config

__all__ = ["METADATA_PATH", "add_resource_metadata", "challenge", "metadata"]

METADATA_PATH = "/.well-known/oauth-protected-resource"


def _base(config: Config, scope: Scope) -> str:
    if config.public_url:
        return config.public_url.rstrip("/")
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("host") or "{}:{}".format(*scope.get("server") or ("127.0.0.1", 8765))
    return f"{scope.get('scheme', 'http')}://{host}"


def metadata(config: Config, scope: Scope) -> dict[str, Any]:
    base = _base(config, scope)
    return {
        "resource": f"{base}/mcp",
        "resource_name": "Groundnote MCP",
        "authorization_servers": [],
        "bearer_methods_supported": ["header"],
    }


def challenge(config: Config, scope: Scope) -> str:
    """The WWW-Authenticate value of a 401 from the MCP endpoint (RFC 9728 §5.1)."""
    url = _base(config, scope) + METADATA_PATH
    return f'Bearer resource_metadata="{url}"'


def add_resource_metadata(app: FastAPI, config: Config) -> None:
    async def serve(request: Request) -> JSONResponse:
        return JSONResponse(metadata(config, request.scope))

    # The bare path, and the form with the resource's path appended (RFC 9728 §3.1).
    for path in (METADATA_PATH, METADATA_PATH + "/mcp"):
        app.add_api_route(path, serve, methods=["GET"], include_in_schema=False)
