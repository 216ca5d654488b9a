"""The approval channel's HTTP routes: decisions by persons, never by agents' grants.

This is the only module of the HTTP surface that may import `decision/` and `structure/`
(architecture rule AT2). A person is recognised by a JWT with the approval audience (hosted)
or by the session cookie of the approval pages, which on these JSON routes must come with
the session's CSRF token in `X-CSRF-Token` and pass the same origin checks as a form. A
grant's bearer token is never a person: the channel check answers it with 403.
"""

from __future__ import annotations

from fastapi import FastAPI, Request

from groundnote import decision, structure
from groundnote.auth import Principal, person_from_jwt
from groundnote.capabilities import Registry
from groundnote.runtime import Runtime
from groundnote.surfaces.http.routes import SchemaSink, add_capability_routes, bearer_token
from groundnote.surfaces.web import add_pages
from groundnote.surfaces.web.security import CSRF_HEADER, cross_site_reason, person_session

__all__ = ["add_approval_routes", "approval_registry"]


def approval_registry() -> Registry:
    """The capabilities only a person may call, on the approval channel."""
    return Registry([*decision.CAPABILITIES, *structure.CAPABILITIES])


def add_approval_routes(app: FastAPI, runtime: Runtime, sink: SchemaSink) -> None:
    registry = approval_registry()

    def person_of(request: Request) -> Principal | None:
        token = bearer_token(request.headers)
        person = person_from_jwt(token, runtime.config.auth)
        if person is not None:
            return person
        if token is None:
            session = person_session(runtime, request)
            presented = request.headers.get(CSRF_HEADER)
            if (
                session is not None
                and cross_site_reason(runtime, request, session, presented) is None
            ):
                return session.principal
            return None
        # A grant: refused by the channel check, which names the approval page; a token no
        # live grant has is refused as such.
        return runtime.presented(token)

    add_capability_routes(
        app, runtime, registry, channel="approval", authenticate=person_of, sink=sink
    )
    add_pages(app, runtime, registry)
