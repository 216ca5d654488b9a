"""The error envelope on HTTP: one body and the status of its code, never a stack trace."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from groundnote.domain.errors import GroundnoteError, Internal, NotFound, ValidationFailed
from groundnote.domain.guidance import Next

__all__ = ["ERROR_RESPONSES", "ErrorBody", "error_response", "install_error_handlers"]

log = logging.getLogger("groundnote.http")


class ErrorBody(BaseModel):
    """The one error body of every surface; extras per seed 000 §8 ride along."""

    model_config = ConfigDict(extra="allow")

    error: str = Field(description="A stable code, e.g. validation-failed, duplicate-candidate.")
    message: str
    remedy: str = Field(description="What to do instead of repeating the call.")
    next: list[Next] = Field(max_length=3)


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in [
        (400, "validation-failed, reason-missing, scope-mismatch"),
        (401, "auth-required"),
        (403, "scope-not-allowed, channel-not-allowed, right-missing"),
        (404, "not-found, reference-unknown"),
        (409, "a conflict: duplicate-candidate, cycle, version-outdated, already-decided, …"),
        (413, "payload-too-large"),
        (422, "depth-limit"),
        (429, "too-many-attempts: failed credentials from this address; see Retry-After"),
        (500, "internal"),
        (503, "busy: other writers held the scope file too long; retry"),
    ]
}


def error_response(error: GroundnoteError) -> JSONResponse:
    headers: dict[str, str] = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if "retry_after" in error.extras:
        headers["Retry-After"] = str(error.extras["retry_after"])
    elif error.status == 503:
        headers["Retry-After"] = "1"
    return JSONResponse(error.body(), status_code=error.status, headers=headers or None)


def install_error_handlers(app: FastAPI) -> None:
    async def on_groundnote(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, GroundnoteError)
        return error_response(exc)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 404:
            return error_response(
                NotFound(
                    f"There is no route {request.url.path}.",
                    remedy="See /openapi.json for the routes.",
                )
            )
        error = ValidationFailed(f"{request.method} {request.url.path}: {exc.detail}.")
        response = error_response(error)
        response.status_code = exc.status_code
        return response

    async def on_any(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(Internal("An internal error occurred; it was logged."))

    app.add_exception_handler(GroundnoteError, on_groundnote)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_any)
