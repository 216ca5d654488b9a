"""A long MCP call reports its progress when the client sends a progress token: refreshing the
knowledge index (majordomus_knowledge_validate) notifies per phase, and without a token
nothing is sent."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from groundnote.auth import Principal
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.server import build_server
from tests.knowledge.conftest import commit, write_record


def test_validate_reports_progress_per_phase(
    runtime: Runtime, repo: Path, kb: str, reader: Principal
) -> None:
    for n in range(3):
        write_record(repo, f"e1-00000000000{n}", title=f"Record {n}")
    commit(repo, "three records")
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def run() -> tuple[bool, bool]:
        async with Client(build_server(runtime, lambda _ctx: reader)) as client:
            watched = await client.call_tool(
                "majordomus_knowledge_validate", {"scope": kb}, progress_callback=on_progress
            )
            reported = len(seen)
            write_record(repo, "e1-000000000009", title="Record 9")
            commit(repo, "one more")
            quiet = await client.call_tool("majordomus_knowledge_validate", {"scope": kb})
            assert len(seen) == reported  # no token, no notifications
        return watched.is_error, quiet.is_error

    assert anyio.run(run) == (False, False)
    assert seen, "a call with a progress token gets progress notifications"
    phases = {message for _, _, message in seen}
    assert phases & {"files", "git", "write"}
    for progress, total, _ in seen:
        assert total is not None and 0 <= progress <= total
