"""A call the client cancels before its write commits writes nothing, and its retry is not
refused as a duplicate of it (the official client, in-process; the write is held at the
scope's write gate until the cancellation has reached the server)."""

from __future__ import annotations

import logging
import threading

import anyio
import pytest
from mcp import Client

from groundnote.auth import Principal
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import mcp_body

ENTITY = {"scope": "sales", "type": "organisation", "name": "Kessler AG"}


def test_a_cancelled_create_writes_nothing(
    runtime: Runtime, scope: str, agent: Principal, caplog: pytest.LogCaptureFixture
) -> None:
    db = runtime.home.scope_db(scope)
    gate = db.gate
    release = threading.Event()
    holding = threading.Event()

    def hold_the_gate() -> None:
        with db.write():
            holding.set()
            release.wait()

    holder = threading.Thread(target=hold_the_gate)
    holder.start()
    holding.wait()
    tickets = gate._next_ticket  # the holder's; the next one is the create's

    async def run() -> dict[str, object]:
        async with Client(build_server(runtime, lambda _ctx: agent)) as client:
            with caplog.at_level(logging.INFO, logger="groundnote.surfaces.mcp.server"):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(client.call_tool, "entity_create", ENTITY)
                    while gate._next_ticket == tickets:  # the create waits at the gate
                        await anyio.sleep(0.01)
                    tasks.cancel_scope.cancel()
                while "cancelled by the client" not in caplog.text:
                    await anyio.sleep(0.01)
            release.set()
            await anyio.to_thread.run_sync(holder.join)
            tree = await client.call_tool("entity_tree", {"scope": scope})
            retry = await client.call_tool("entity_create", ENTITY)
        return {"tree": mcp_body(tree), "retry": mcp_body(retry), "error": retry.is_error}

    seen = anyio.run(run)
    assert seen["tree"]["nodes"] == []  # type: ignore[index]
    assert seen["error"] is False, seen["retry"]
    assert seen["retry"]["created"] is True  # type: ignore[index]
