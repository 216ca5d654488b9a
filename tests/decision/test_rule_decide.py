"""decision.rule_decide: a person adopts, rejects or retracts, only on the approval channel."""

from __future__ import annotations

import pytest

from groundnote import decision
from groundnote.auth import Right
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime, build_registry
from tests.conftest import Call, make_principal
from tests.core.conftest import Decide, mail, propose, rows

MAIL = "source/mail:<m1@example.org>"


@pytest.fixture
def proposed(call: Call) -> str:
    call("core.store_source", scope="sales", source=mail(1))
    return str(propose(call, "Kunden im Gebiet Nord erhalten 3 % Rabatt.", [MAIL])["id"])


def test_a_person_adopts_a_proposal(decide: Decide, proposed: str, runtime: Runtime) -> None:
    out = decide(proposed, "adopt")
    assert out["status"] == "adopted" and out["auto_adopted"] is False
    assert out["approval_url"] is None
    [d] = out["decisions"]
    assert (d["verdict"], d["decided_by"], d["channel"]) == ("adopt", "person:ruth", "approval")
    assert rows(
        runtime, "SELECT operation, grant_id, channel FROM search_log WHERE operation='decide'"
    ) == [("decide", "person:ruth", "approval")]


def test_reject_and_retract_need_a_reason(decide: Decide, proposed: str, runtime: Runtime) -> None:
    for verdict in ("reject", "retract"):
        with pytest.raises(GroundnoteError) as exc:
            decide(proposed, verdict)
        assert exc.value.body()["error"] == "reason-missing"
    assert rows(runtime, "SELECT count(*) FROM rule_decision") == [(0,)]
    out = decide(proposed, "reject", "Gilt nur für Bestandskunden.")
    assert out["status"] == "rejected"
    assert out["decisions"][0]["reason"] == "Gilt nur für Bestandskunden."


def test_a_second_decision_on_the_same_state_is_already_decided(
    decide: Decide, proposed: str
) -> None:
    decide(proposed, "adopt")
    for verdict, reason in (("adopt", None), ("reject", "zu spät")):
        with pytest.raises(GroundnoteError) as exc:
            decide(proposed, verdict, reason)
        body = exc.value.body()
        assert body["error"] == "already-decided" and body["current"] == "adopted"
    assert decide(proposed, "retract", "Aufgehoben")["status"] == "retracted"
    with pytest.raises(GroundnoteError) as again:
        decide(proposed, "retract", "nochmal")
    assert again.value.body()["error"] == "already-decided"


def test_retracting_a_proposal_is_refused_with_the_way_out(decide: Decide, proposed: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        decide(proposed, "retract", "falsch")
    body = exc.value.body()
    assert body["error"] == "state-changed" and "Reject" in body["remedy"]


def test_an_unknown_rule_is_not_found(decide: Decide, scope: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        decide("sales-0009", "adopt")
    assert exc.value.body()["error"] == "not-found"


def test_agents_cannot_reach_the_decision(runtime: Runtime, proposed: str) -> None:
    assert "decision.rule_decide" not in {c.name for c in build_registry()}
    # Even a grant with the decide right is an agent: the approval channel is for persons only.
    agent, _ = make_principal(runtime, "sneaky", {"sales": Right.DECIDE}, ["mcp", "api"])
    for channel in ("mcp", "api"):
        with pytest.raises(GroundnoteError) as exc:
            runtime.invoke(
                decision.RULE_DECIDE,
                {"scope": "sales", "id": proposed, "verdict": "adopt"},
                principal=agent,
                channel=channel,
            )
        assert exc.value.body()["error"] == "channel-not-allowed"
    assert rows(runtime, "SELECT count(*) FROM rule_decision") == [(0,)]


def test_the_decision_route_is_on_the_approval_channel() -> None:
    cap = decision.RULE_DECIDE
    assert cap.approval and cap.channels == frozenset({"approval"})
    assert cap.http is not None and (cap.http.method, cap.http.path) == (
        "POST",
        "/v1/rules/{id}/decision",
    )
    assert cap.mcp is None
