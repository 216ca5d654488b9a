"""The ASGI app: the HTTP API from the registry, MCP at /mcp, the approval channel's routes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from groundnote import __version__
from groundnote.auth import Principal
from groundnote.domain.errors import AuthRequired, NotFound
from groundnote.impulses import RESOLVE_ENDPOINT, prune_periodically
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import add_approval_routes
from groundnote.surfaces.http.errors import error_response, install_error_handlers
from groundnote.surfaces.http.impulses import add_impulse_routes
from groundnote.surfaces.http.limits import BodyLimit
from groundnote.surfaces.http.resource_metadata import add_resource_metadata, challenge
from groundnote.surfaces.http.routes import (
    MAX_BODY_BYTES,
    SchemaSink,
    add_capability_routes,
    bearer_token,
)
from groundnote.surfaces.http.throttle import FailureThrottle
from groundnote.surfaces.mcp.server import build_server

__all__ = ["create_app"]

PRINCIPAL_KEY = "groundnote.principal"


SESSION_HEADER = "mcp-session-id"


class _BearerGuard:
    """Refuses an MCP request without valid credentials before the SDK sees it, and one that
    presents another grant's session: a session belongs to the grant that opened it."""

    def __init__(self, runtime: Runtime, app: Any) -> None:
        self.runtime = runtime
        self.app = app
        self.owners: dict[str, str] = {}  # session id → the grant that opened it

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        try:
            principal = self.runtime.presented(bearer_token(headers))
            if principal is None:
                raise AuthRequired(
                    "The MCP endpoint needs a bearer token.",
                    remedy=(
                        "Send `Authorization: Bearer <token>`: the token `groundnote serve` "
                        "printed in the client configuration, or one from `groundnote grant "
                        "create NAME --scope SCOPE:propose --channel mcp`."
                    ),
                )
            session = headers.get(SESSION_HEADER)
            owner = self.owners.get(session) if session else None
            if owner is not None and owner != principal.id:
                # The answer of a session that does not exist, so that it tells nothing.
                raise NotFound(
                    "There is no MCP session with this Mcp-Session-Id.",
                    remedy="Start a new session: send initialize without Mcp-Session-Id.",
                )
        except (AuthRequired, NotFound) as exc:
            response = error_response(exc)
            if exc.status == 401:  # where a client reads that a bearer token is expected
                response.headers["WWW-Authenticate"] = challenge(self.runtime.config, scope)
            await response(scope, receive, send)
            return
        # The SDK hands each tool call this request's scope; the call reads its caller there.
        scope[PRINCIPAL_KEY] = principal
        await self.app(
            scope, receive, self._recording(send, principal.id, scope["method"], session)
        )

    def _recording(self, send: Send, grant: str, method: str, session: str | None) -> Send:
        """Notes the owner of a session the SDK opens with this response, and forgets one the
        SDK has ended (deleted, or unknown to it: expired)."""

        async def recorded(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                ended = (method == "DELETE" and status < 300) or status == 404
                if session and ended:  # kept while the session lives: unowned, anyone's
                    self.owners.pop(session, None)
                for key, value in message.get("headers", []):
                    if method == "POST" and key.decode("latin-1").lower() == SESSION_HEADER:
                        self.owners.setdefault(value.decode("latin-1"), grant)
            await send(message)

        return recorded


def _transport_security(runtime: Runtime) -> TransportSecuritySettings:
    extra = runtime.config.server.allowed_hosts
    local = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*local, *extra],
        allowed_origins=[f"http://{h}" for h in local] + [f"https://{h}" for h in extra],
    )


def create_app(runtime: Runtime) -> FastAPI:
    def principal_of_request(request: Request) -> Principal | None:
        return runtime.presented(bearer_token(request.headers))

    def principal_of_mcp(ctx: ServerRequestContext[Any, Any]) -> Principal | None:
        scope = getattr(ctx.request, "scope", None) or {}
        principal = scope.get(PRINCIPAL_KEY)
        return principal if isinstance(principal, Principal) else None

    mcp_server = build_server(runtime, principal_of_mcp)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        transport_security=_transport_security(runtime),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        interval = runtime.config.impulses.prune_interval_seconds
        async with mcp_server.session_manager.run(), anyio.create_task_group() as tasks:
            tasks.start_soon(prune_periodically, runtime.home, interval)
            yield
            tasks.cancel_scope.cancel()

    app = FastAPI(
        title="Groundnote",
        version=__version__,
        description="The knowledge store that AI agents write to and people can trust.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    sink: SchemaSink = {}
    add_capability_routes(
        app, runtime, runtime.registry, channel="api", authenticate=principal_of_request, sink=sink
    )
    add_approval_routes(app, runtime, sink)
    add_impulse_routes(app, runtime)
    add_resource_metadata(app, runtime.config)
    for route in mcp_app.routes:
        assert isinstance(route, Route)
        app.router.routes.append(Route(route.path, endpoint=_BearerGuard(runtime, route.app)))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            schema.setdefault("components", {}).setdefault("schemas", {}).update(sink)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    def body_limit(path: str) -> int:
        return (
            runtime.config.impulses.max_body_bytes if path == RESOLVE_ENDPOINT else MAX_BODY_BYTES
        )

    app.add_middleware(BodyLimit, limit_of=body_limit)
    # Outermost: a throttled address is answered before anything else runs.
    app.add_middleware(FailureThrottle, per_minute=runtime.config.server.auth_failures_per_minute)
    return app
