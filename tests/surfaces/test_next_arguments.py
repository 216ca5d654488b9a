"""`next` carries the arguments of the call it suggests: an agent follows without guessing ids
from prose. Every suggested call with complete arguments is a valid call that answers; partial
ones (link_propose lacks what only the agent knows) name only fields the tool has."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client

from groundnote.auth import Principal
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import Call, mcp_body


def _answers(runtime: Runtime, agent: Principal, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    async def run() -> list[dict[str, Any]]:
        found = []
        async with Client(build_server(runtime, lambda _ctx: agent)) as client:
            for tool, raw in calls:
                found.append(mcp_body(await client.call_tool(tool, raw)))
            for answer in list(found):
                for step in answer.get("next", []):
                    cap = runtime.registry.by_tool(step["tool"])
                    if not step.get("arguments") or cap is None:
                        continue
                    fields = cap.input.model_fields
                    assert set(step["arguments"]) <= set(fields), step
                    required = {n for n, f in fields.items() if f.is_required()}
                    if required <= set(step["arguments"]):
                        followed = await client.call_tool(step["tool"], step["arguments"])
                        assert not followed.is_error, (step, followed.content)
        return found

    return anyio.run(run)


def test_next_steps_carry_arguments_that_work(
    runtime: Runtime, scope: str, agent: Principal, call: Call
) -> None:
    top = call("graph.entity_create", scope=scope, type="organisation", name="Kessler AG")
    top_id = top["entity"]["id"]
    for n in range(55):
        call(
            "graph.entity_create",
            scope=scope,
            type="department",
            name=f"Abteilung {n:02d}",
            parent_id=top_id,
            force=True,
            reason="test",
        )
    answers = _answers(
        runtime,
        agent,
        [
            ("entity_resolve", {"scope": scope, "q": "Kessler AG"}),
            ("entity_resolve", {"scope": scope, "q": "Kesslar Gruppe"}),
            ("entity_path", {"scope": scope, "id": top_id}),
            ("entity_tree", {"scope": scope, "id": top_id}),
            ("entity_create", {"scope": scope, "type": "organisation", "name": "Kessler AG"}),
        ],
    )
    exact, weak, path, tree, duplicate = answers
    assert exact["next"][0] == {
        "tool": "entity_path",
        "arguments": {"scope": scope, "id": top_id},
        "why": f"check the place of {top_id}",
    }
    assert weak["candidates"] and weak["candidates"][0]["match"] not in ("exact", "alias")
    assert "ask" in weak["next"][0]["why"] and "person" in weak["next"][0]["why"]
    assert path["next"][0]["tool"] == "link_propose"
    assert path["next"][0]["arguments"] == {"scope": scope, "to_ref": f"entity/{top_id}"}
    assert {"tool": "entity_tree", "arguments": {"scope": scope, "page": 2, "id": top_id}} == {
        k: v for k, v in tree["next"][-1].items() if k != "why"
    }
    assert duplicate["error"] == "duplicate-candidate"
    assert duplicate["next"][0]["arguments"] == {"scope": scope, "id": top_id}
