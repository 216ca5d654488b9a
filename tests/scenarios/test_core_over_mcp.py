"""Issue 3's scenario over the official MCP client, with the decision on the approval channel.

Store a mail thread with an attachment, propose a rule from it, a person adopts it over HTTP;
search finds it with its source, thread and attachment; a superseding rule shows as successor;
`as_of` before `valid_from` hides the rule.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import jwt
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from groundnote.auth import Principal, Right
from groundnote.domain.clock import FixedClock
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.http import create_app
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import make_principal

SECRET = "approval-secret-for-tests-0123456789"
FIRST = "mail:<angebot-1@kunde.example>"
REPLY = "mail:<angebot-2@firma.example>"


@pytest.fixture
def approval_runtime(tmp_path: Path) -> Iterator[Runtime]:
    clock = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    runtime = open_runtime(
        tmp_path / "home", clock=clock, environ={"GROUNDNOTE_AUTH__JWT_SECRET": SECRET}
    )
    runtime.home.create_scope("sales")
    yield runtime
    runtime.close()


def _person_token() -> str:
    claims = {
        "sub": "ruth",
        "email": "ruth@example.org",
        "aud": "groundnote-approval",
        "exp": int(time.time()) + 300,
    }
    return jwt.encode(claims, SECRET, algorithm="HS256")


def _adopt(http: TestClient, rule_id: str) -> None:
    response = http.post(
        f"/v1/rules/{rule_id}/decision",
        json={"scope": "sales", "verdict": "adopt"},
        headers={"Authorization": f"Bearer {_person_token()}"},
    )
    assert response.status_code == 200, response.text


async def _tool(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.structured_content
    return result.structured_content


def test_mail_thread_to_adopted_rule_to_successor(approval_runtime: Runtime) -> None:
    agent: Principal = make_principal(
        approval_runtime, "claude", {"sales": Right.PROPOSE}, ["mcp"]
    )[0]
    http = TestClient(create_app(approval_runtime), base_url="http://127.0.0.1:8765")

    async def agent_part_one(client: Client) -> str:
        await _tool(
            client,
            "store_source",
            {
                "scope": "sales",
                "source": {
                    "kind": "mail",
                    "id": FIRST,
                    "subject": "Angebot Rahmenvertrag",
                    "sender": "einkauf@kunde.example",
                    "sent_at": "2026-11-02T09:00:00Z",
                    "body": "Bitte prüfen Sie den Rabatt von 12 %.",
                    "attachments": [
                        {
                            "filename": "preisliste.txt",
                            "media_type": "text/plain",
                            "text": "Preisliste 2027: Rabatte über 10 % nur mit Freigabe der Vertriebsleitung.",
                        }
                    ],
                },
            },
        )
        await _tool(
            client,
            "store_source",
            {
                "scope": "sales",
                "source": {
                    "kind": "mail",
                    "id": REPLY,
                    "subject": "Re: Angebot Rahmenvertrag",
                    "sender": "vertrieb@firma.example",
                    "sent_at": "2026-11-03T10:00:00Z",
                    "in_reply_to": FIRST.removeprefix("mail:"),
                    "body": "Freigabe der Vertriebsleitung liegt vor.",
                },
            },
        )
        proposed = await _tool(
            client,
            "propose_rule",
            {
                "scope": "sales",
                "statement": "Rabatte über 10 % brauchen die Freigabe der Vertriebsleitung.",
                "evidence": {
                    "quote": "Rabatte über 10 % nur mit Freigabe der Vertriebsleitung.",
                    "refs": [f"source/{FIRST}", f"attachment/{FIRST}#1"],
                },
                "valid_from": "2026-11-01",
            },
        )
        return str(proposed["id"])

    async def run() -> None:
        async with Client(build_server(approval_runtime, lambda _ctx: agent)) as client:
            first = await agent_part_one(client)
            assert first == "sales-0001"
            before = await _tool(
                client, "search", {"scope": "sales", "query": "Rabatt Freigabe", "compact": False}
            )
            assert before["bundles"] == []  # proposed only: not a head without include_proposed
            await anyio.to_thread.run_sync(_adopt, http, first)

            found = await _tool(
                client, "search", {"scope": "sales", "query": "Rabatt Freigabe", "compact": False}
            )
            bundle = found["bundles"][0]
            assert bundle["head"]["id"] == first and bundle["head"]["status"] == "adopted"
            kinds = [g["kind"] for g in bundle["groups"]]
            assert kinds[:3] == ["source", "thread", "attachment"]
            thread = next(g for g in bundle["groups"] if g["kind"] == "thread")
            assert f"source/{REPLY}" in [e["ref"] for e in thread["entries"]]

            successor = await _tool(
                client,
                "propose_rule",
                {
                    "scope": "sales",
                    "statement": "Rabatte über 8 % brauchen die Freigabe der Vertriebsleitung.",
                    "evidence": {
                        "quote": "Freigabe der Vertriebsleitung liegt vor.",
                        "refs": [f"source/{REPLY}"],
                    },
                    "valid_from": "2026-12-01",
                    "supersedes": first,
                },
            )
            second = str(successor["id"])
            await anyio.to_thread.run_sync(_adopt, http, second)

            now = await _tool(
                client,
                "search",
                {
                    "scope": "sales",
                    "query": "Rabatt Freigabe",
                    "compact": False,
                    "as_of": "2026-11-30",
                },
            )
            head = now["bundles"][0]
            assert head["head"]["id"] == first
            successors = [g for g in head["groups"] if g["kind"] == "successor"]
            assert successors and successors[0]["entries"][0]["ref"] == f"rule/{second}"

            earlier = await _tool(
                client,
                "search",
                {"scope": "sales", "query": "Rabatt Freigabe", "as_of": "2026-10-15"},
            )
            assert earlier["bundles"] == []

    anyio.run(run)
    http.close()
