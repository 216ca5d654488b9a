"""`POST /v2/impulses/resolve`: one request body in, one status and envelope out.

The HTTP surface hands over the raw body and the authenticated principal (or None); every rule
of seed 003 is applied here, in this order: body size, JSON envelope `{pointer: {type, …}}`,
authentication (anonymous callers resolve only the read allowlist; a refusal logs exactly one
`[auth-refused]` line), the shape's payload, then the resolver. Answers:

    200 {"success": true, "content": "<JSON text>", "metadata": {"shape", "summary", …}}
    4xx/5xx {"success": false, "error": "<message>", …}

Write shapes answer `metadata.shape = "<type>_result"` and, when audited, `auditImpulseId`.
Each call leaves one operation-log row in instance.db (inside a write's own transaction).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from groundnote.auth.principal import Principal
from groundnote.capabilities import input_sha256, validation_error
from groundnote.config import Config
from groundnote.domain.errors import GroundnoteError, from_backstop
from groundnote.impulses.shapes import ANONYMOUS_READ_SHAPES, DISPATCH, Shape, ShapeCall
from groundnote.impulses.writes import Caller
from groundnote.store.home import Home
from groundnote.store.oplog import OpLogEntry, write_entry

__all__ = ["RESOLVE_ENDPOINT", "ResolveAnswer", "resolve_request"]

log = logging.getLogger("groundnote.impulses")

RESOLVE_ENDPOINT = "/v2/impulses/resolve"
OPERATION = "impulses.resolve"


@dataclass(frozen=True)
class ResolveAnswer:
    status: int
    body: dict[str, Any]


class _Refusal(Exception):
    def __init__(self, status: int, message: str, outcome: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.outcome = outcome
        self.body = {"success": False, "error": message, **extra}


def _envelope(body: bytes, limit: int) -> tuple[str, dict[str, Any]]:
    if len(body) > limit:
        raise _Refusal(
            400,
            f"The request body has {len(body)} bytes; the limit is {limit}.",
            "payload-too-large",
        )
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _Refusal(
            400,
            'The body is not JSON; send {"pointer": {"type": "<shape>", …}}.',
            "validation-failed",
        ) from None
    if (
        not isinstance(data, dict)
        or set(data) != {"pointer"}
        or not isinstance(data["pointer"], dict)
    ):
        raise _Refusal(
            400,
            'The body must be {"pointer": {"type": "<shape>", …}} and nothing else.',
            "validation-failed",
        )
    pointer = dict(data["pointer"])
    shape = pointer.pop("type", None)
    if not isinstance(shape, str) or not shape:
        raise _Refusal(400, "pointer.type is required: the shape to resolve.", "validation-failed")
    return shape, pointer


def _refuse_anonymous(shape: str, config: Config) -> _Refusal:
    allowed = [] if config.impulses.require_auth else ANONYMOUS_READ_SHAPES
    log.warning(
        "[auth-refused] shape=%s require_auth=%s allowlist=%s",
        shape,
        config.impulses.require_auth,
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
    return _Refusal(
        401,
        message,
        "auth-required",
        code="AUTH_REQUIRED",
        shape=shape,
        allowlist=allowed,
        remedy="Send `Authorization: Bearer <token>` with a grant or JWT of your org.",
    )


def _payload(shape: Shape, pointer: dict[str, Any]) -> dict[str, Any]:
    if shape.payload_field is None:
        return pointer
    value = pointer.get(shape.payload_field)
    if not isinstance(value, dict) or not value:
        raise _Refusal(
            400,
            f"{shape.payload_field} required for {shape.name} (a JSON object).",
            "validation-failed",
        )
    extra = sorted(set(pointer) - {shape.payload_field})
    if extra:
        raise _Refusal(
            400,
            f"{shape.name} takes only pointer.{shape.payload_field}; unknown: {', '.join(extra)}.",
            "validation-failed",
        )
    return value


def _principal_refusal(principal: Principal, channel: str) -> _Refusal | None:
    if channel in principal.channels:
        return None
    return _Refusal(
        403,
        f"This grant may not be used on the {channel} channel.",
        "channel-not-allowed",
        remedy="Ask the operator for a grant that allows it.",
    )


def _dispatch(
    home: Home,
    config: Config,
    principal: Principal | None,
    shape_name: str,
    pointer: dict[str, Any],
    activity_id: str | None,
    logger: Any,
) -> ResolveAnswer:
    if principal is None and (
        config.impulses.require_auth or shape_name not in ANONYMOUS_READ_SHAPES
    ):
        raise _refuse_anonymous(shape_name, config)
    if principal is not None and (refusal := _principal_refusal(principal, "api")):
        raise refusal
    shape = DISPATCH.get(shape_name)
    if shape is None:
        raise _Refusal(
            400,
            f"Unknown shape {shape_name!r}.",
            "validation-failed",
            supported_shapes=sorted(DISPATCH),
        )
    payload = _payload(shape, pointer)
    caller = Caller(
        org=principal.org if principal else config.impulses.anonymous_org,
        actor=principal.id if principal else "anonymous",
        activity_id=activity_id,
    )
    call = ShapeCall(home, config, caller, within=logger if shape.mutates else None)
    try:
        assert shape.resolver is not None
        resolved = shape.resolver(call, payload)
    except ValidationError as exc:
        prefix = f"{shape.payload_field}." if shape.payload_field else "pointer."
        problems = validation_error(exc).extras["problems"]
        text = "; ".join(f"{prefix}{p['key']}: {p['problem']}" for p in problems)
        raise _Refusal(
            400, f"The pointer for {shape.name} is not valid: {text}.", "validation-failed"
        ) from None
    metadata: dict[str, Any] = {
        "shape": f"{shape.name}_result" if shape.kind == "write" else shape.name,
        "summary": resolved.summary,
    }
    if resolved.audited:
        metadata["auditImpulseId"] = resolved.audit_impulse_id
    return ResolveAnswer(
        200, {"success": True, "content": json.dumps(resolved.content), "metadata": metadata}
    )


def resolve_request(
    home: Home,
    config: Config,
    principal: Principal | None,
    body: bytes,
    *,
    activity_id: str | None = None,
) -> ResolveAnswer:
    """Answer one resolve request; never raises."""
    entry = OpLogEntry()
    request_id = uuid.uuid4().hex[:12]
    digest = input_sha256(body.decode("utf-8", "replace")[:1_000_000])

    def write_log(conn: sqlite3.Connection, outcome: str) -> None:
        write_entry(
            conn,
            entry,
            at=home.clock.instant(),
            grant_id=principal.id if principal else "anonymous",
            channel="api",
            operation=OPERATION,
            outcome=outcome,
            input_sha256=digest,
        )

    outcome = "ok"
    try:
        shape_name, pointer = _envelope(body, config.impulses.max_body_bytes)
        entry.stages = {"shape": shape_name}
        answer = _dispatch(
            home,
            config,
            principal,
            shape_name,
            pointer,
            activity_id,
            lambda conn: write_log(conn, "ok"),
        )
    except _Refusal as refusal:
        outcome = refusal.outcome
        answer = ResolveAnswer(refusal.status, refusal.body)
    except GroundnoteError as exc:
        outcome = exc.code
        answer = ResolveAnswer(exc.status, {"success": False, "error": exc.message})
    except sqlite3.IntegrityError as exc:
        known = from_backstop(str(exc))
        if known is None:
            log.exception("request %s: the store refused an impulse write", request_id)
            outcome, answer = "internal", _internal(request_id)
        else:
            outcome = known.code
            answer = ResolveAnswer(known.status, {"success": False, "error": known.message})
    except Exception:
        log.exception("request %s: resolve failed", request_id)
        outcome, answer = "internal", _internal(request_id)
    if not entry.written:
        try:
            with home.instance.write() as conn:
                write_log(conn, outcome)
        except sqlite3.Error:
            log.exception("request %s: the operation log row could not be written", request_id)
    return answer


def _internal(request_id: str) -> ResolveAnswer:
    return ResolveAnswer(
        500,
        {"success": False, "error": f"The resolver failed (request {request_id}); it was logged."},
    )
