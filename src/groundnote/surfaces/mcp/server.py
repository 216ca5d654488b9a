"""The MCP server, served from the registry through the SDK's low-level `Server`.

Why low-level (DESIGN §5.2): the high-level server drops unknown arguments of a flat signature
(the seed requires refusing them) and rewrites error text so the body would not parse. Here the
input model validates the arguments, and a refusal is an `isError` result whose text is the one
error body of every surface (without structured content: see `error_result`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from groundnote import __version__
from groundnote.auth import Principal
from groundnote.capabilities import Capability, usable
from groundnote.domain.cancel import cancellable
from groundnote.domain.errors import GroundnoteError, NotFound
from groundnote.domain.progress import Progress
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp import resources
from groundnote.surfaces.mcp.instructions import INSTRUCTIONS
from groundnote.surfaces.mcp.schema import input_schema, output_schema
from groundnote.surfaces.mcp.untrusted import UNTRUSTED_META, untrusted_note, untrusted_paths

__all__ = ["PrincipalResolver", "build_server", "checked_each_call", "error_result"]

log = logging.getLogger(__name__)

# How a call finds its caller: the `--token` on stdio, the bearer token per HTTP request; both
# checked per call (raising auth-required once the grant is revoked or expired).
PrincipalResolver = Callable[[ServerRequestContext[Any, Any]], Principal | None]


def checked_each_call(runtime: Runtime, token: str | None) -> PrincipalResolver:
    """The caller behind a token fixed for the process (stdio's `--token`), looked up on every
    call, so that revoking the grant or its expiry takes effect at once (about 25 µs)."""

    def caller(_ctx: ServerRequestContext[Any, Any]) -> Principal | None:
        return runtime.presented(token)

    return caller


def error_result(error: GroundnoteError) -> types.CallToolResult:
    """A refusal: the body as JSON text, and no structured content. Clients built on the
    TypeScript SDK validate structured content against the tool's output schema, which
    describes the answer, not the refusal; a body there would reach the agent as a -32602
    schema error instead of its remedy and next steps."""
    body = error.body()
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(body, ensure_ascii=False))],
        is_error=True,
    )


def _tool(cap: Capability[Any, Any], runtime: Runtime) -> types.Tool:
    assert cap.mcp is not None
    return types.Tool(
        name=cap.mcp.tool,
        title=cap.mcp.title,
        description=cap.description,
        input_schema=input_schema(cap, runtime.config),
        output_schema=output_schema(cap),
        annotations=types.ToolAnnotations(
            read_only_hint=cap.annotations.read_only,
            destructive_hint=cap.annotations.destructive,
            idempotent_hint=cap.annotations.idempotent,
            open_world_hint=cap.annotations.open_world,
        ),
    )


async def _cancellable(call: Callable[[], BaseModel]) -> BaseModel:
    """Runs the call on a worker thread; when the client cancels it, the thread is left to
    finish, and its next commit rolls back (domain/cancel.py), so a cancelled write that has
    not committed yet writes nothing."""
    event = threading.Event()

    def run() -> BaseModel:
        with cancellable(event):
            return call()

    try:
        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        event.set()
        log.info("a call was cancelled by the client; its writes not yet committed roll back")
        raise


def _progress(ctx: ServerRequestContext[Any, Any]) -> Progress:
    """Long work's progress as MCP progress notifications, sent from the worker thread the
    handler runs on; the SDK sends them only when the client asked with a progress token.
    About twenty per phase, so that a phase of 10,000 files costs no 10,000 round trips."""

    def report(phase: str, done: int, total: int) -> None:
        if done == total or done % max(1, total // 20) == 0:
            notify = partial(ctx.session.report_progress, done, total, phase)
            anyio.from_thread.run(notify)

    return report


def build_server(runtime: Runtime, principal_of: PrincipalResolver) -> Server[Any]:
    # The schemas depend on the registry and the configuration, both fixed for a runtime; the
    # SDK asks for a tool's input schema on every call (header validation), so build them once.
    offered = [cap for cap in runtime.registry if cap.mcp is not None]
    tools = {id(cap): _tool(cap, runtime) for cap in offered}
    schemas = {tool.name: tool.input_schema for tool in tools.values()}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # Only what this grant can use: a read grant is not shown the write tools.
        try:
            principal = principal_of(ctx)
        except GroundnoteError as exc:  # a grant revoked or expired since the session began
            raise MCPError(types.INVALID_REQUEST, exc.message, data=exc.body()) from exc
        return types.ListToolsResult(
            tools=[
                tools[id(cap)] for cap in offered if usable(cap, principal, "mcp", runtime.config)
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        cap = runtime.registry.by_tool(params.name)
        if cap is None:
            return error_result(
                NotFound(
                    f"There is no tool {params.name!r}.",
                    remedy="Call tools/list and use one of the tools it names.",
                )
            )
        try:
            call = partial(
                runtime.invoke,
                cap,
                params.arguments or {},
                principal=principal_of(ctx),
                channel="mcp",
                progress=_progress(ctx),
            )
            out = await _cancellable(call)
        except GroundnoteError as exc:
            return error_result(exc)
        data = out.model_dump(mode="json")
        content: list[types.ContentBlock] = [
            types.TextContent(text=json.dumps(data, ensure_ascii=False))
        ]
        foreign = untrusted_paths(data)
        if foreign:
            content.append(untrusted_note(foreign))
        return types.CallToolResult(
            content=content,
            structured_content=data,
            meta={UNTRUSTED_META: foreign} if foreign else None,
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=p.name,
                    description=p.description,
                    arguments=[
                        types.PromptArgument(
                            name=a.name, description=a.description, required=a.required
                        )
                        for a in p.arguments
                    ],
                )
                for p in runtime.registry.prompts.values()
            ]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        prompt = runtime.registry.prompts.get(params.name)
        if prompt is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"There is no prompt {params.name!r}; prompts/list names them.",
            )
        try:
            messages = prompt.render(dict(params.arguments or {}), runtime.config)
        except GroundnoteError as exc:
            # Prompts have no error result; the body travels as the error's data.
            raise MCPError(types.INVALID_PARAMS, exc.message, data=exc.body()) from exc
        return types.GetPromptResult(
            description=prompt.description,
            messages=[
                types.PromptMessage(role=role, content=types.TextContent(text=text))
                for role, text in messages
            ],
        )

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params else None
        listing = partial(resources.list_resources, runtime, cursor, partial(principal_of, ctx))
        return await anyio.to_thread.run_sync(listing)

    async def list_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=resources.TEMPLATES)

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        read = partial(
            resources.read_resource, runtime, str(params.uri), partial(principal_of, ctx)
        )
        return await anyio.to_thread.run_sync(read)

    return Server(
        "groundnote",
        version=__version__,
        instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
