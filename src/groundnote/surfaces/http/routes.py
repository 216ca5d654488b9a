"""HTTP routes derived from capability declarations: one route per capability with `http`.

GET inputs come from query parameters, other methods from the JSON body; `{name}` segments
of the path fill the input field of that name. Validation is the registry's, as on every
surface; the OpenAPI entry (operationId = capability name) is generated from the same models.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from groundnote.auth import Principal
from groundnote.capabilities import Capability
from groundnote.capabilities.keys import KEY_FIELD
from groundnote.domain.errors import GroundnoteError, ValidationFailed
from groundnote.runtime import Runtime
from groundnote.surfaces.http.errors import ERROR_RESPONSES, error_response
from groundnote.surfaces.http.limits import load_json

__all__ = ["MAX_BODY_BYTES", "add_capability_routes", "bearer_token"]

MAX_BODY_BYTES = 10 * 1024 * 1024
_PARAM = re.compile(r"{(\w+)}")

Authenticator = Callable[[Request], Principal | None]
SchemaSink = dict[str, dict[str, Any]]


def bearer_token(headers: typing.Mapping[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, set, tuple):
        return True
    return any(_is_list(arg) for arg in typing.get_args(annotation))


async def _raw_input(cap: Capability[Any, Any], request: Request) -> dict[str, Any]:
    assert cap.http is not None
    if cap.http.method == "GET":
        raw: dict[str, Any] = {}
        for key in request.query_params:
            values = request.query_params.getlist(key)
            field = cap.input.model_fields.get(key)
            raw[key] = values if field is not None and _is_list(field.annotation) else values[-1]
    else:
        # The size limit holds while the body streams in (limits.BodyLimit).
        body = await request.body()
        parsed = load_json(body) if body.strip() else {}
        if not isinstance(parsed, dict):
            raise ValidationFailed("The body must be a JSON object.")
        raw = parsed
    header_key = request.headers.get("idempotency-key")
    if header_key is not None and KEY_FIELD in cap.input.model_fields:
        if raw.get(KEY_FIELD, header_key) != header_key:
            raise ValidationFailed(
                f"The Idempotency-Key header and {KEY_FIELD} in the body differ; send one."
            )
        raw[KEY_FIELD] = header_key
    for name, value in request.path_params.items():
        if name in raw and raw[name] != value:
            raise ValidationFailed(f"{name} is given in the path and differently in the input.")
        raw[name] = value
    return raw


def _endpoint(
    runtime: Runtime, cap: Capability[Any, Any], channel: str, authenticate: Authenticator
) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        try:
            principal = authenticate(request)
            # Credentials before the body: a call that will be refused for want of them is
            # answered without reading a byte of what it sent.
            admitted = principal is not None or cap.admits_anonymous(runtime.config)
            raw = await _raw_input(cap, request) if admitted else {}
            call = partial(runtime.invoke, cap, raw, principal=principal, channel=channel)
            out = await anyio.to_thread.run_sync(call)
        except GroundnoteError as exc:
            return error_response(exc)
        return JSONResponse(out.model_dump(mode="json"))

    endpoint.__name__ = cap.name.replace(".", "_")
    return endpoint


def _openapi_extra(
    cap: Capability[Any, Any], path_params: list[str], sink: SchemaSink
) -> dict[str, Any]:
    schema = cap.input.model_json_schema(ref_template="#/components/schemas/{model}")
    sink.update(schema.pop("$defs", {}))
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": properties.get(name, {"type": "string"}),
        }
        for name in path_params
    ]
    assert cap.http is not None
    if cap.http.method == "GET":
        parameters += [
            {"name": name, "in": "query", "required": name in required, "schema": prop}
            for name, prop in properties.items()
            if name not in path_params
        ]
        return {"parameters": parameters}
    body = dict(schema)
    body["properties"] = {k: v for k, v in properties.items() if k not in path_params}
    body["required"] = sorted(required - set(path_params))
    if not body["required"]:
        del body["required"]
    sink[cap.input.__name__] = body
    return {
        "parameters": parameters,
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{cap.input.__name__}"}
                }
            },
        },
    }


def add_capability_routes(
    app: FastAPI,
    runtime: Runtime,
    capabilities: typing.Iterable[Capability[Any, Any]],
    *,
    channel: str,
    authenticate: Authenticator,
    sink: SchemaSink,
) -> None:
    for cap in capabilities:
        if cap.http is None or cap.approval != (channel == "approval"):
            continue
        path_params = _PARAM.findall(cap.http.path)
        app.add_api_route(
            cap.http.path,
            _endpoint(runtime, cap, channel, authenticate),
            methods=[cap.http.method],
            operation_id=cap.name,
            response_model=cap.output,
            summary=cap.summary,
            description=cap.description,
            tags=[cap.name.split(".")[0]],
            responses=ERROR_RESPONSES,
            openapi_extra=_openapi_extra(cap, path_params, sink),
        )
