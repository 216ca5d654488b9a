"""`POST /v2/impulses/resolve`: seed 003's envelope around the shape capabilities.

This only translates: the body `{"pointer": {"type": "<shape>", …}}` is taken apart here, the
shape's capability is called through the registry like every other call (credentials,
channel, validation, the right in the caller's organisation, one operation-log row named
`impulses.resolve` with the shape, the one backstop mapping), and its answer or refusal is put
back into the seed's envelope and status codes:

    200 {"success": true, "content": "<JSON text>", "metadata": {"shape", "summary", …}}
    4xx/5xx {"success": false, "error": "<message>", …}

Write shapes answer `metadata.shape = "<type>_result"` and, when audited, `auditImpulseId`. A
call without credentials that its shape does not admit is `401 AUTH_REQUIRED`, naming the
shape and the anonymous allowlist, with exactly one `[auth-refused]` log line.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from groundnote.auth import Principal
from groundnote.capabilities import Capability, LogAs
from groundnote.domain.errors import (
    AuthRequired,
    ChannelNotAllowed,
    GroundnoteError,
    PayloadTooLarge,
    ValidationFailed,
)
from groundnote.impulses import ADVERTISED_SHAPES, RESOLVE_ENDPOINT
from groundnote.runtime import Runtime
from groundnote.surfaces.http.limits import load_json
from groundnote.surfaces.http.routes import bearer_token

__all__ = ["OPERATION", "add_impulse_routes", "refuse_body", "resolve_body"]

log = logging.getLogger("groundnote.impulses")

OPERATION = "impulses.resolve"
Answer = tuple[int, dict[str, Any]]

_ENVELOPE = {"type": "object", "properties": {"success": {"type": "boolean"}}}
_REQUEST_SCHEMA = {
    "type": "object",
    "required": ["pointer"],
    "additionalProperties": False,
    "properties": {
        "pointer": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"type": "string", "enum": ADVERTISED_SHAPES}},
        }
    },
}


def _pointer(body: bytes, limit: int) -> tuple[str, dict[str, Any]]:
    """The shape named and the rest of the pointer, or the seed's 400 for the body."""
    if len(body) > limit:
        raise PayloadTooLarge(f"The request body has {len(body)} bytes; the limit is {limit}.")
    data = load_json(
        body, not_json='The body is not JSON; send {"pointer": {"type": "<shape>", …}}.'
    )
    if (
        not isinstance(data, dict)
        or set(data) != {"pointer"}
        or not isinstance(data["pointer"], dict)
    ):
        raise ValidationFailed(
            'The body must be {"pointer": {"type": "<shape>", …}} and nothing else.'
        )
    pointer = dict(data["pointer"])
    shape = pointer.pop("type", None)
    if not isinstance(shape, str) or not shape:
        raise ValidationFailed("pointer.type is required: the shape to resolve.")
    return shape, pointer


def _allowlist(runtime: Runtime) -> list[str]:
    return [
        c.shape.name
        for c in runtime.registry.shapes()
        if c.shape and c.admits_anonymous(runtime.config)
    ]


def _auth_refused(runtime: Runtime, shape: str) -> Answer:
    allowed = _allowlist(runtime)
    log.warning(
        "[auth-refused] shape=%s require_auth=%s allowlist=%s",
        shape,
        runtime.config.impulses.require_auth,
        ",".join(allowed) or "-",
    )
    if allowed:
        message = (
            f"Resolving {shape!r} needs credentials; without them only these shapes resolve: "
            f"{', '.join(allowed)}."
        )
    else:
        message = (
            f"Resolving {shape!r} needs credentials; this instance requires them for every shape."
        )
    return 401, {
        "success": False,
        "error": message,
        "code": "AUTH_REQUIRED",
        "shape": shape,
        "allowlist": allowed,
        "remedy": "Send `Authorization: Bearer <token>` with a grant or JWT of your org.",
    }


def _invalid_pointer(cap: Capability[Any, Any], problems: list[dict[str, str]]) -> str:
    """The registry's validation problems in the seed's words for a pointer."""
    assert cap.shape is not None
    name, field = cap.shape.name, cap.shape.payload_field
    prefix = "pointer."
    if field is not None:
        top = [p for p in problems if "." not in p["key"]]
        if any(p["key"] == field for p in top):
            return f"{field} required for {name} (a JSON object)."
        extra = sorted(p["key"] for p in top if p["problem"] == "unknown key, not allowed")
        if extra:
            return f"{name} takes only pointer.{field}; unknown: {', '.join(extra)}."
        prefix = ""  # the keys start with the payload field already
    text = "; ".join(f"{prefix}{p['key']}: {p['problem']}" for p in problems)
    return f"The pointer for {name} is not valid: {text}."


def _refused(
    runtime: Runtime, error: GroundnoteError, shape: str | None, cap: Capability[Any, Any] | None
) -> Answer:
    if isinstance(error, AuthRequired):
        return _auth_refused(runtime, shape or "")
    if isinstance(error, ChannelNotAllowed):
        return 403, {
            "success": False,
            "error": "This grant may not be used on the api channel.",
            "remedy": "Ask the operator for a grant that allows it.",
        }
    message = error.message
    problems = error.extras.get("problems")
    if isinstance(error, ValidationFailed) and cap is not None and isinstance(problems, list):
        message = _invalid_pointer(cap, problems)
    body: dict[str, Any] = {"success": False, "error": message}
    if "supported_shapes" in error.extras:
        body["supported_shapes"] = error.extras["supported_shapes"]
    status = 400 if isinstance(error, PayloadTooLarge) else error.status
    return status, body


def _answered(cap: Capability[Any, Any], out: Any) -> Answer:
    assert cap.shape is not None
    name = cap.shape.name
    metadata: dict[str, Any] = {
        "shape": f"{name}_result" if cap.shape.writes else name,
        "summary": out.summary,
    }
    if out.audited:
        metadata["auditImpulseId"] = out.audit_impulse_id
    return 200, {"success": True, "content": json.dumps(out.content), "metadata": metadata}


def resolve_body(
    runtime: Runtime, principal: Principal | None, body: bytes, activity_id: str | None
) -> Answer:
    """One resolve request: status and body. Refusals before a shape is known (the body, an
    unknown shape) are logged like any refusal, under the same operation."""
    log_as = LogAs(OPERATION)
    shape: str | None = None
    try:
        shape, pointer = _pointer(body, runtime.config.impulses.max_body_bytes)
        log_as = LogAs(OPERATION, {"shape": shape})
        cap = runtime.registry.by_shape(shape)
        if cap is None:
            if principal is None:  # an unknown shape needs credentials like every write
                raise AuthRequired(f"Resolving {shape!r} needs credentials.")
            raise ValidationFailed(
                f"Unknown shape {shape!r}.",
                supported_shapes=sorted(c.shape.name for c in runtime.registry.shapes() if c.shape),
            )
    except GroundnoteError as exc:
        runtime.registry.refuse(
            runtime.home,
            exc,
            principal=principal,
            channel="api",
            raw=body.decode("utf-8", "replace")[:1_000_000],
            log_as=log_as,
        )
        return _refused(runtime, exc, shape, None)
    meta = {"activity_id": activity_id} if activity_id else {}
    try:
        out = runtime.invoke(
            cap, pointer, principal=principal, channel="api", log_as=log_as, meta=meta
        )
    except GroundnoteError as exc:
        return _refused(runtime, exc, shape, cap)
    return _answered(cap, out)


def refuse_body(runtime: Runtime, principal: Principal | None, error: PayloadTooLarge) -> Answer:
    """A body refused while it streamed in (limits.BodyLimit), logged like any refusal."""
    runtime.registry.refuse(
        runtime.home, error, principal=principal, channel="api", raw={}, log_as=LogAs(OPERATION)
    )
    return _refused(runtime, error, None, None)


def add_impulse_routes(app: FastAPI, runtime: Runtime) -> None:
    async def resolve(request: Request) -> JSONResponse:
        principal = runtime.authenticate(bearer_token(request.headers))
        try:
            body = await request.body()
        except PayloadTooLarge as exc:
            status, answer = await run_in_threadpool(refuse_body, runtime, principal, exc)
            return JSONResponse(answer, status_code=status)
        status, answer = await run_in_threadpool(
            resolve_body, runtime, principal, body, request.headers.get("x-activity-execution-id")
        )
        return JSONResponse(answer, status_code=status)

    app.add_api_route(
        RESOLVE_ENDPOINT,
        resolve,
        methods=["POST"],
        operation_id="impulses.resolve",
        summary="Resolve an impulse pointer: a read shape, or a _write shape that records data.",
        tags=["impulses"],
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _REQUEST_SCHEMA}},
            },
            "responses": {
                str(code): {
                    "description": why,
                    "content": {"application/json": {"schema": _ENVELOPE}},
                }
                for code, why in (
                    (200, "resolved: {success, content, metadata}"),
                    (400, "bad pointer, payload or body"),
                    (401, "AUTH_REQUIRED: names the shape and the anonymous allowlist"),
                    (403, "the grant may not use the api channel, or lacks the right"),
                    (404, "a referenced concept does not exist in your org"),
                    (429, "too many failed credentials from this address; see Retry-After"),
                    (500, "resolver error"),
                )
            },
        },
    )
