"""What agents leave behind for a person to decide, written by the graph's own writers.

`AgentWrites` calls the graph's capabilities through the registry on the MCP channel, as an
agent would, so the approval channel is tested against exactly the states it meets in use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

from groundnote.auth import Principal
from groundnote.runtime import Runtime

CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class AgentWrites:
    runtime: Runtime
    principal: Principal  # grant:agent, with propose on the scope
    scope: str = "sales"

    def _call(self, capability: str, /, **raw: Any) -> dict[str, Any]:
        cap = self.runtime.registry.get(capability)
        out = self.runtime.invoke(
            cap, {"scope": self.scope, **raw}, principal=self.principal, channel="mcp"
        )
        return out.model_dump(mode="json")

    def create(
        self,
        name: str,
        parent: str | None = None,
        *,
        type: str = "department",
        aliases: list[str] | None = None,
        reason: str = "created via mcp",
        evidence: str | None = None,
    ) -> str:
        # force: the tests name their entities freely; the duplicate checks are graph's tests
        out = self._call(
            "graph.entity_create",
            type=type,
            name=name,
            parent_id=parent,
            aliases=aliases or [],
            reason=reason,
            evidence=evidence,
            force=True,
        )
        return str(out["entity"]["id"])

    def _version(self, entity_id: str) -> int:
        with self.runtime.home.scope_db(self.scope).read() as conn:
            return int(
                conn.execute(
                    "SELECT max(version) FROM entity_version WHERE id = ?", (entity_id,)
                ).fetchone()[0]
            )

    def move(self, entity_id: str, parent: str | None, reason: str = "moved via mcp") -> int:
        self._call("graph.entity_move", id=entity_id, parent_id=parent, reason=reason)
        return self._version(entity_id)

    def rename(self, entity_id: str, name: str, reason: str = "renamed via mcp") -> int:
        self._call("graph.entity_update", id=entity_id, name=name, reason=reason, force=True)
        return self._version(entity_id)

    def link(
        self,
        from_ref: str,
        to_ref: str,
        type: str = "concerns",
        *,
        confidence: float = 0.8,
        reason: str = "the mail names it",
    ) -> str:
        out = self._call(
            "graph.link_propose",
            from_ref=from_ref,
            to_ref=to_ref,
            type=type,
            confidence=confidence,
            reason=reason,
        )
        return str(out["link"]["id"])


def current(runtime: Runtime, entity_id: str, scope: str = "sales") -> dict[str, Any]:
    with runtime.home.scope_db(scope).read() as conn:
        row = conn.execute("SELECT * FROM entity_current WHERE id = ?", (entity_id,)).fetchone()
        return dict(row)


def path_names(runtime: Runtime, entity_id: str, scope: str = "sales") -> list[str]:
    with runtime.home.scope_db(scope).read() as conn:
        return [
            r[0]
            for r in conn.execute(
                "SELECT k.name FROM entity_closure c JOIN entity_current k ON k.id = c.ancestor_id "
                "WHERE c.descendant_id = ? ORDER BY c.depth DESC",
                (entity_id,),
            )
        ]


def csrf_of(html: str) -> str:
    found = CSRF_FIELD.search(html)
    assert found, "the page carries no CSRF field"
    return found.group(1)


@dataclass
class Approver:
    """A person signed in on the approval pages through a real TestClient session."""

    client: TestClient
    csrf: str

    def review(self, target: str, verdict: str, reason: str | None = None) -> Any:
        body: dict[str, Any] = {"target": target, "verdict": verdict}
        if reason is not None:
            body["reason"] = reason
        return self.client.post("/v1/reviews", json=body, headers={"X-CSRF-Token": self.csrf})

    def archive(self, entity_id: str, version: int, **more: Any) -> Any:
        return self.client.post(
            f"/v1/entities/{entity_id}/archive",
            json={"version": version, **more},
            headers={"X-CSRF-Token": self.csrf},
        )

    def form(self, name: str, **fields: Any) -> Any:
        data = {"csrf": self.csrf, **{k: str(v) for k, v in fields.items()}}
        return self.client.post(f"/approval/act/{name}", data=data, follow_redirects=False)
