"""`POST /v2/impulses/resolve`: seed 003's own envelope and status codes, so not a derived route.

This only translates HTTP: the raw body, the bearer token's principal (or None) and the
optional `X-Activity-Execution-Id` header go in; `impulses.resolve_request` applies every rule
and answers a status and a body.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from groundnote.impulses import ADVERTISED_SHAPES, RESOLVE_ENDPOINT, resolve_request
from groundnote.runtime import Runtime
from groundnote.surfaces.http.routes import bearer_token

__all__ = ["add_impulse_routes"]

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


def add_impulse_routes(app: FastAPI, runtime: Runtime) -> None:
    async def resolve(request: Request) -> JSONResponse:
        body = await request.body()
        principal = runtime.authenticate(bearer_token(request.headers))
        answer = await run_in_threadpool(
            resolve_request,
            runtime.home,
            runtime.config,
            principal,
            body,
            activity_id=request.headers.get("x-activity-execution-id"),
        )
        return JSONResponse(answer.body, status_code=answer.status)

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
                    (403, "the grant may not use the api channel"),
                    (404, "a referenced concept does not exist in your org"),
                    (500, "resolver error"),
                )
            },
        },
    )
