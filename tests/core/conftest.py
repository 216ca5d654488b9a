"""Helpers for the core tests: a person on the approval channel, sample mails and decisions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from groundnote import decision
from groundnote.auth import Principal, Right
from groundnote.capabilities import Registry
from groundnote.runtime import Runtime

Decide = Callable[..., dict[str, Any]]

RUTH = Principal(
    id="person:ruth",
    org="local",
    channels=frozenset({"approval"}),
    rights={"*": Right.DECIDE},
    identity="ruth@example.org",
)


def mail(number: int, **fields: Any) -> dict[str, Any]:
    """A mail source with the id mail:<m<number>@example.org>."""
    data: dict[str, Any] = {
        "kind": "mail",
        "id": f"mail:<m{number}@example.org>",
        "subject": f"Rabattstaffel Nord {number}",
        "sender": "Ines Kraft <ines@example.org>",
        "to": ["vertrieb@example.org"],
        "sent_at": "2026-10-01T08:00:00.000Z",
        "body": "Ab November gilt für Kunden im Gebiet Nord ein Rabatt von drei Prozent.",
    }
    data.update(fields)
    return data


def meeting(name: str, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "meeting",
        "id": f"jamie:{name}",
        "title": "Vertriebsrunde",
        "date": "2026-10-02",
        "participants": ["Ines Kraft", "Tom Berger"],
        "transcript": "Ines: Lieferungen nach Österreich gehen nur noch per Spedition Huber.",
    }
    data.update(fields)
    return data


def propose(
    call: Callable[..., dict[str, Any]], statement: str, refs: list[str], **more: Any
) -> dict[str, Any]:
    evidence = {"quote": more.pop("quote", statement[:50]), "refs": refs}
    return call("core.propose_rule", scope="sales", statement=statement, evidence=evidence, **more)


@pytest.fixture
def decide(runtime: Runtime) -> Decide:
    """Call decision.rule_decide as the person Ruth on the approval channel."""
    registry = Registry([*decision.CAPABILITIES])

    def invoke(
        rule_id: str, verdict: str, reason: str | None = None, scope: str = "sales"
    ) -> dict[str, Any]:
        raw: dict[str, Any] = {"scope": scope, "id": rule_id, "verdict": verdict}
        if reason is not None:
            raw["reason"] = reason
        out = registry.invoke(
            runtime.home,
            runtime.config,
            registry.get("decision.rule_decide"),
            raw,
            principal=RUTH,
            channel="approval",
        )
        return out.model_dump(mode="json")

    return invoke


def rows(runtime: Runtime, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with runtime.home.scope_db("sales").read() as conn:
        return [tuple(r) for r in conn.execute(sql, params)]
