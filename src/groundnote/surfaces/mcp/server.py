"""The MCP server, served from the registry through the SDK's low-level `Server`.

Why low-level (DESIGN §5.2): the high-level server drops unknown arguments of a flat signature
(the seed requires refusing them) and rewrites error text so the body would not parse. Here the
input model validates the arguments, and a refusal is an `isError` result whose text and
structured content are the one error body of every surface.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from groundnote import __version__
from groundnote.auth import Principal
from groundnote.domain.errors import GroundnoteError, NotFound
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.instructions import INSTRUCTIONS
from groundnote.surfaces.mcp.schema import input_schema, output_schema
from groundnote.surfaces.mcp.untrusted import UNTRUSTED_META, untrusted_note, untrusted_paths

__all__ = ["PrincipalResolver", "build_server", "error_result"]

# How a call finds its caller: fixed for stdio (`--token`), the bearer token per HTTP request.
PrincipalResolver = Callable[[ServerRequestContext[Any, Any]], Principal | None]


def error_result(error: GroundnoteError) -> types.CallToolResult:
    body = error.body()
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=True,
    )


def _tools(runtime: Runtime) -> list[types.Tool]:
    tools = []
    for cap in runtime.registry:
        if cap.mcp is None:
            continue
        tools.append(
            types.Tool(
                name=cap.mcp.tool,
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
        )
    return tools


def build_server(runtime: Runtime, principal_of: PrincipalResolver) -> Server[Any]:
    # The schemas depend on the registry and the configuration, both fixed for a runtime; the
    # SDK asks for a tool's input schema on every call (header validation), so build them once.
    tools = _tools(runtime)
    schemas = {tool.name: tool.input_schema for tool in tools}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

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
        call = partial(
            runtime.invoke, cap, params.arguments or {}, principal=principal_of(ctx), channel="mcp"
        )
        try:
            out = await anyio.to_thread.run_sync(call)
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

    return Server(
        "groundnote",
        version=__version__,
        instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
