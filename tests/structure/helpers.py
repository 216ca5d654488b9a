"""What agents leave behind for a person to decide, written as graph's writers write it.

The tests stand the graph's agent writes up with the same rows graph/entities.py and
graph/links.py write (create: unconfirmed version 1 + closure + FTS; move and update: a new
version with the status unchanged; link_propose: a proposed link), so the approval channel is
tested against exactly the states it meets in use.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

from groundnote.graph.closure import on_create, on_move
from groundnote.graph.fts import put_text
from groundnote.runtime import Runtime

CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class AgentWrites:
    runtime: Runtime
    scope: str = "sales"
    by: str = "grant:agent"

    def _at(self) -> str:
        return self.runtime.home.clock.instant()

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
        db = self.runtime.home.scope_db(self.scope)
        with db.write() as conn:
            seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM entity").fetchone()[0]
            entity_id = f"{self.scope}-e{seq:04d}"
            conn.execute(
                "INSERT INTO entity (seq, id, scope, created_at, created_by) "
                "VALUES (?, ?, ?, ?, 'agent')",
                (seq, entity_id, self.scope, self._at()),
            )
            conn.execute(
                "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, "
                "valid_from, evidence, change, channel, changed_by, changed_at, reason) VALUES "
                "(?, 1, ?, ?, ?, ?, 'unconfirmed', ?, ?, 'create', 'mcp', ?, ?, ?)",
                (
                    entity_id,
                    type,
                    name,
                    json.dumps(aliases or []),
                    parent,
                    self.runtime.home.clock.today("Europe/Berlin"),
                    evidence,
                    self.by,
                    self._at(),
                    reason,
                ),
            )
            on_create(conn, entity_id, parent)
            put_text(conn, seq, name, aliases or [])
        return entity_id

    def _next(self, entity_id: str, change: str, reason: str, **fields: Any) -> int:
        db = self.runtime.home.scope_db(self.scope)
        with db.write() as conn:
            cur = dict(
                conn.execute("SELECT * FROM entity_current WHERE id = ?", (entity_id,)).fetchone()
            )
            cur.update(fields, version=cur["version"] + 1, change=change, channel="mcp")
            cur.update(changed_by=self.by, changed_at=self._at(), reason=reason)
            cols = ", ".join(cur)
            conn.execute(
                f"INSERT INTO entity_version ({cols}) VALUES ({', '.join('?' for _ in cur)})",
                tuple(cur.values()),
            )
            if "parent_id" in fields:
                on_move(conn, entity_id, fields["parent_id"])
            if "name" in fields:
                seq = conn.execute("SELECT seq FROM entity WHERE id = ?", (entity_id,)).fetchone()
                put_text(conn, seq[0], fields["name"], json.loads(cur["aliases"]))
        return int(cur["version"])

    def move(self, entity_id: str, parent: str | None, reason: str = "moved via mcp") -> int:
        return self._next(entity_id, "move", reason, parent_id=parent)

    def rename(self, entity_id: str, name: str, reason: str = "renamed via mcp") -> int:
        return self._next(entity_id, "update", reason, name=name)

    def link(
        self,
        from_ref: str,
        to_ref: str,
        type: str = "concerns",
        *,
        confidence: float = 0.8,
        reason: str = "the mail names it",
    ) -> str:
        db = self.runtime.home.scope_db(self.scope)
        with db.write() as conn:
            seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM link").fetchone()[0]
            link_id = f"{self.scope}-l{seq:04d}"
            conn.execute(
                "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, confidence, reason, "
                "valid_from, created_at, created_by) VALUES (?, ?, ?, ?, ?, 'proposed', ?, ?, ?, ?, ?)",
                (
                    seq,
                    link_id,
                    from_ref,
                    to_ref,
                    type,
                    confidence,
                    reason,
                    self._at(),
                    self._at(),
                    self.by,
                ),
            )
        return link_id


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
