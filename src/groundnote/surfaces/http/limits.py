"""Limits that hold before a request costs anything: body size, JSON nesting.

`BodyLimit` wraps `receive`: the first read refuses a declared `Content-Length` above the
route's limit before one byte is taken, and every later read counts the bytes as they arrive
(a chunked body declares none), so a 300 MB upload is refused after at most the limit plus one
chunk, never held in memory whole. A route that needs credentials checks them before it reads
its body at all. The refusal is raised from `receive` as `PayloadTooLarge`, so a route answers
it in its own envelope; one that lets it escape (the MCP SDK's) gets the usual 413 body here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundnote.domain.bounds import MAX_NESTING, nests_within
from groundnote.domain.errors import PayloadTooLarge, ValidationFailed
from groundnote.surfaces.http.errors import error_response

__all__ = ["BodyLimit", "load_json"]

LimitOf = Callable[[str], int]


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _sends_body(scope: Scope, declared: int | None) -> bool:
    chunked = any(name == b"transfer-encoding" for name, _ in scope.get("headers", []))
    return chunked or bool(declared)


class BodyLimit:
    def __init__(self, app: ASGIApp, limit_of: LimitOf) -> None:
        self.app = app
        self.limit_of = limit_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_of(scope["path"])
        declared = _declared_length(scope)
        unread = _sends_body(scope, declared)
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen, unread
            if declared is not None and declared > limit:
                raise PayloadTooLarge(
                    f"The body declares {declared} bytes; the limit is {limit}.",
                    remedy="Send a smaller body: split the work into several calls.",
                    limit=limit,
                )
            message = await receive()
            if message["type"] == "http.request":
                unread = bool(message.get("more_body", False))
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise PayloadTooLarge(
                        f"The body has more than {limit} bytes; the limit is {limit}, the rest was not read.",
                        remedy="Send a smaller body: split the work into several calls.",
                        limit=limit,
                    )
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if unread:
                    # Answered before the body was read (refused credentials, too large): close
                    # the connection after the answer, so the server takes none of the rest.
                    headers = [*message.get("headers", []), (b"connection", b"close")]
                    message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except PayloadTooLarge as exc:
            if started:
                raise
            await error_response(exc)(scope, receive, tracked_send)


def load_json(body: bytes, *, not_json: str | None = None) -> Any:
    """Parsed JSON, or validation-failed for text that is not JSON (`not_json` says so in a
    route's own words) or nests too deep."""
    try:
        parsed = json.loads(body)
    except RecursionError:
        parsed = None
        deep = True
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationFailed(not_json or f"The body is not valid JSON: {exc}.") from None
    else:
        deep = not nests_within(parsed)
    if deep:
        raise ValidationFailed(
            f"The body nests deeper than {MAX_NESTING} levels.",
            remedy=f"Send JSON nested at most {MAX_NESTING} levels deep.",
        )
    return parsed
