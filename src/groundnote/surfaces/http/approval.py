"""The approval channel's HTTP routes: decisions by persons, never by agents' grants.

This is the only module of the HTTP surface that may import `decision/` and `structure/`
(architecture rule AT2); a grant's bearer token is never a person, so it gets 403 here.
"""

from __future__ import annotations

from fastapi import FastAPI, Request

from groundnote import decision
from groundnote.auth import Principal, person_from_jwt
from groundnote.capabilities import Registry
from groundnote.runtime import Runtime
from groundnote.surfaces.http.routes import SchemaSink, add_capability_routes, bearer_token

__all__ = ["add_approval_routes", "approval_registry"]


def approval_registry() -> Registry:
    """The capabilities only a person may call, on the approval channel."""
    return Registry(decision.CAPABILITIES)


def add_approval_routes(app: FastAPI, runtime: Runtime, sink: SchemaSink) -> None:
    registry = approval_registry()

    def person_of(request: Request) -> Principal | None:
        token = bearer_token(request.headers)
        person = person_from_jwt(token, runtime.config.auth)
        if person is not None:
            return person
        return runtime.authenticate(token)  # a grant: refused by the channel check

    add_capability_routes(
        app, runtime, registry, channel="approval", authenticate=person_of, sink=sink
    )
