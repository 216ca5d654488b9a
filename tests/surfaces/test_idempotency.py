"""Idempotency keys (issue 15.9): a write retried with its key, after its answer was lost, is
answered with the first answer and not done again; the same key with other input is a
conflict. Over a real uvicorn (header `Idempotency-Key`) and the registry (MCP argument)."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from groundnote.auth import Right
from groundnote.runtime import Runtime
from tests.conftest import Call, make_principal

ACME = {"scope": "sales", "type": "customer", "name": "Acme", "force": True, "reason": "new"}


def _entities(runtime: Runtime) -> int:
    with runtime.home.scope_db("sales").read() as conn:
        return int(conn.execute("SELECT count(*) FROM entity").fetchone()[0])


def _post(base: str, token: str, body: dict[str, Any], key: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return httpx.post(base + "/v1/entities", json=body, headers=headers, timeout=30)


def test_a_retry_without_a_key_cannot_tell_what_happened(
    runtime: Runtime, live_server: str, agent_token: str, call: Call
) -> None:
    """The failure the key exists for: a create repeated is refused as a duplicate of itself
    (the caller never learns the answer), and a rule proposed again is a second rule."""
    assert _post(live_server, agent_token, ACME, None).status_code == 200
    retried = _post(live_server, agent_token, ACME, None)
    assert retried.status_code == 409 and retried.json()["error"] == "duplicate-candidate"
    rule = _rule(call)
    del rule["idempotency_key"]
    assert call("core.propose_rule", **rule)["id"] != call("core.propose_rule", **rule)["id"]


def test_a_retry_with_its_key_gets_the_first_answer(
    runtime: Runtime, live_server: str, agent_token: str
) -> None:
    first = _post(live_server, agent_token, ACME, "k-1")
    again = _post(live_server, agent_token, ACME, "k-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert _entities(runtime) == 1
    other = _post(live_server, agent_token, {**ACME, "name": "Globex"}, "k-2")
    assert other.json()["entity"]["id"] != first.json()["entity"]["id"]  # a new request
    assert _entities(runtime) == 2


def test_the_same_key_with_other_input_is_a_conflict(
    runtime: Runtime, live_server: str, agent_token: str
) -> None:
    assert _post(live_server, agent_token, ACME, "k-1").status_code == 200
    changed = _post(live_server, agent_token, {**ACME, "name": "Globex"}, "k-1")
    assert changed.status_code == 409
    assert changed.json()["error"] == "idempotency-conflict"
    assert _entities(runtime) == 1


def test_concurrent_calls_with_one_key_write_once(
    runtime: Runtime, live_server: str, agent_token: str
) -> None:
    answers: list[httpx.Response] = []

    def send() -> None:
        answers.append(_post(live_server, agent_token, ACME, "same"))

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [200] * 6
    assert len({a.json()["entity"]["id"] for a in answers}) == 1
    assert _entities(runtime) == 1


def test_a_key_is_the_callers_own(
    runtime: Runtime, live_server: str, agent_token: str, scope: str
) -> None:

    _, other = make_principal(runtime, "other", {scope: Right.PROPOSE}, ["api"])
    assert _post(live_server, agent_token, ACME, "k").status_code == 200
    theirs = _post(live_server, other, ACME, "k")
    # Not handed the first caller's answer: the call is made, and refused on its own merits.
    assert theirs.json()["error"] == "duplicate-candidate"


def _rule(call: Call) -> dict[str, Any]:
    call(
        "core.store_source",
        scope="sales",
        source={"kind": "mail", "id": "mail:<a@example.com>", "subject": "Terms"},
    )
    return {
        "scope": "sales",
        "statement": "Invoices are paid within 30 days.",
        "evidence": {"quote": "30 days", "refs": ["source/mail:<a@example.com>"]},
        "idempotency_key": "r-1",
    }


def test_propose_rule_takes_the_key_as_an_argument(call: Call, runtime: Runtime) -> None:
    rule = _rule(call)
    first = call("core.propose_rule", **rule)
    again = call("core.propose_rule", **rule)
    assert again == first
    with runtime.home.scope_db("sales").read() as conn:
        assert conn.execute("SELECT count(*) FROM rule").fetchone()[0] == 1
