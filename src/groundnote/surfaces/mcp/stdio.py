"""The SDK's server on the stdio wire the front claimed (front.py), with a reader that answers.

The SDK's own stdio reader (mcp 2.x `mcp.server.stdio`) hands a line that fails to parse to
the session as an exception, which the session logs and drops: the client gets no reply and
waits forever for its request — a lone surrogate in an argument (`"\\ud800"`, valid JSON
but not valid Unicode) is such a line. Here such a line gets a JSON-RPC parse error (-32700),
carrying the request's id whenever the line is JSON at all, so that the client's pending
request ends with a message saying what to fix.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

from groundnote.surfaces.mcp.front import Front

__all__ = ["parse_error", "serve_stdio"]

PARSE_ERROR = -32700


def parse_error(line: bytes, problem: str) -> dict[str, Any]:
    """The JSON-RPC error for a line the server cannot take, with the request's id if the
    line is JSON with one (the standard library's parser accepts lone surrogates)."""
    try:
        message = json.loads(line)
    except ValueError:
        message = None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": PARSE_ERROR,
            "message": (
                f"Parse error: {problem}. Send one JSON-RPC message per line, as UTF-8 JSON "
                "whose strings are valid Unicode (no lone surrogates such as \\ud800)."
            ),
        },
    }


def _problem(line: bytes) -> str:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return "the line is not valid UTF-8"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"the line is not JSON ({exc.msg})"
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return "a string holds a lone surrogate, which is not valid Unicode"
    return "the line is JSON but not a JSON-RPC 2.0 request, notification or response"


async def _read(front: Front, into: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    async with into:
        while True:
            line = await anyio.to_thread.run_sync(front.lines.get)
            if line is None:
                return
            if not line.strip():
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                error = parse_error(line, _problem(line))
                front.write(json.dumps(error, separators=(",", ":")).encode())
                continue
            await into.send(SessionMessage(message))


async def _write(front: Front, out: MemoryObjectReceiveStream[SessionMessage]) -> None:
    dropped = False
    async with out:
        async for session_message in out:
            message = session_message.message
            if (
                not dropped
                and front.answered is not None
                and isinstance(message, types.JSONRPCResponse)
                and message.id == front.answered
            ):
                dropped = True  # the front answered this initialize already
                continue
            data = message.model_dump_json(by_alias=True, exclude_unset=True)
            front.write(data.encode("utf-8"))


async def serve_stdio(server: Server[Any], front: Front) -> None:
    send_in, receive_in = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    send_out, receive_out = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_read, front, send_in)
        tasks.start_soon(_write, front, receive_out)
        async with send_out:
            await server.run(receive_in, send_out, server.create_initialization_options())
        front.lines.put(None)  # releases the reader if the server stopped before end of input
