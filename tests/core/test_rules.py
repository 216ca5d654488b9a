"""propose_rule, approval modes and rule_retract."""

from __future__ import annotations

from typing import Any

import pytest

from groundnote.auth import Right
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from tests.conftest import Call, make_principal
from tests.core.conftest import Decide, mail, propose, rows

MAIL = "source/mail:<m1@example.org>"


@pytest.fixture
def stored(call: Call) -> None:
    call(
        "core.store_source",
        scope="sales",
        source=mail(
            1, attachments=[{"filename": "staffel.txt", "media_type": "text/plain", "text": "3 %"}]
        ),
    )


@pytest.mark.usefixtures("stored")
def test_a_proposal_waits_for_a_person(call: Call, runtime: Runtime) -> None:
    out = propose(
        call, "Kunden im Gebiet Nord erhalten 3 % Rabatt.", [MAIL, "mail:<m1@example.org>#1"]
    )
    assert out["id"] == "sales-0001" and out["ref"] == "rule/sales-0001"
    assert out["status"] == "proposed" and out["auto_adopted"] is False
    assert out["evidence"]["refs"] == [MAIL, "attachment/mail:<m1@example.org>#1"]
    assert out["valid_from"] == "2026-11-30"
    assert out["approval_url"] == "http://127.0.0.1:8765/approval/rules/sales-0001"
    assert "Proposed" in out["still_valid"]
    assert rows(runtime, "SELECT source_id, n FROM rule_evidence ORDER BY n NULLS FIRST") == [
        ("mail:<m1@example.org>", None),
        ("mail:<m1@example.org>", 1),
    ]
    assert rows(runtime, "SELECT count(*) FROM rule_decision") == [(0,)]
    second = propose(call, "Zweite Regel.", [MAIL])
    assert second["id"] == "sales-0002"
    # the first step leads to the rule's own link to its entity (DESIGN §15 P8)
    assert [n["tool"] for n in out["next"]] == ["link_propose", "read_rule"]
    assert "rule/sales-0001" in out["next"][0]["why"] and "concerns" in out["next"][0]["why"]


@pytest.mark.usefixtures("stored")
@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"refs": ["source/mail:<nope@example.org>"]}, "reference-unknown"),
        ({"refs": ["attachment/mail:<m1@example.org>#2"]}, "reference-unknown"),
        ({"statement": "x" * 2001}, "validation-failed"),
        ({"statement": "   "}, "validation-failed"),
        ({"refs": []}, "validation-failed"),
        ({"refs": ["rule/sales-0001"]}, "validation-failed"),
        ({"valid_from": "2026-12-01", "valid_to": "2026-11-01"}, "validation-failed"),
        ({"supersedes": "other-0001"}, "scope-mismatch"),
        ({"supersedes": "sales-0042"}, "reference-unknown"),
    ],
)
def test_bad_proposals_are_refused_and_write_nothing(
    call: Call, runtime: Runtime, change: dict[str, Any], code: str
) -> None:
    refs = change.pop("refs", [MAIL])
    statement = change.pop("statement", "Eine Regel.")
    with pytest.raises(GroundnoteError) as exc:
        propose(call, statement, refs, quote="Rabatt", **change)
    body = exc.value.body()
    assert body["error"] == code, body
    assert body["remedy"]
    assert rows(runtime, "SELECT count(*) FROM rule") == [(0,)]
    assert rows(runtime, "SELECT count(*) FROM rule_fts") == [(0,)]


@pytest.mark.usefixtures("stored")
def test_an_unknown_ref_names_what_is_missing(call: Call) -> None:
    with pytest.raises(GroundnoteError) as exc:
        propose(call, "Regel.", [MAIL, "source/jamie:nope"])
    body = exc.value.body()
    assert body["missing"] == ["source/jamie:nope"]
    assert body["next"][0]["tool"] == "store_source"


@pytest.mark.usefixtures("stored")
def test_only_an_adopted_rule_can_be_superseded(call: Call, decide: Decide) -> None:
    propose(call, "Alt.", [MAIL])
    with pytest.raises(GroundnoteError) as exc:
        propose(call, "Neu.", [MAIL], supersedes="sales-0001")
    assert exc.value.body()["error"] == "validation-failed"
    decide("sales-0001", "adopt")
    new = propose(call, "Neu.", [MAIL], supersedes="sales-0001")
    assert new["supersedes"] == "sales-0001"


@pytest.fixture
def auto_call(runtime: Runtime) -> Call:
    runtime.home.create_scope("ops", approval_mode="auto")
    principal, _ = make_principal(runtime, "ops-agent", {"ops": Right.PROPOSE}, ["mcp", "api"])

    def invoke(name: str, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=principal, channel=channel)
        return out.model_dump(mode="json")

    invoke("core.store_source", scope="ops", source=mail(1))
    return invoke


def test_in_auto_mode_the_policy_adopts_at_once(auto_call: Call, runtime: Runtime) -> None:
    out = auto_call(
        "core.propose_rule",
        scope="ops",
        statement="Rechnungen gehen per Mail raus.",
        evidence={"quote": "per Mail", "refs": [MAIL]},
    )
    assert out["id"] == "ops-0001"
    assert out["status"] == "adopted" and out["auto_adopted"] is True
    assert out["approval_url"] is None
    assert "Auto-adopted" in out["still_valid"]
    assert [n["tool"] for n in out["next"]] == ["link_propose", "search", "rule_retract"]
    with runtime.home.scope_db("ops").read() as conn:
        [row] = conn.execute("SELECT verdict, decided_by, channel FROM rule_decision").fetchall()
    assert tuple(row) == ("adopt", "policy:auto-adopt", "policy")
    found = auto_call("core.search", scope="ops", query="Rechnungen Mail", compact=False)
    assert found["bundles"][0]["head"]["auto_adopted"] is True
    assert "auto-adopted" in found["bundles"][0]["line"]


def test_groundnote_json_overrides_the_approval_mode(call: Call, runtime: Runtime) -> None:
    from groundnote.config import ScopeSettings

    runtime.config.scopes["sales"] = ScopeSettings(approval="auto")
    call("core.store_source", scope="sales", source=mail(1))
    assert propose(call, "Regel.", [MAIL])["status"] == "adopted"


def test_an_agent_retracts_an_auto_adopted_rule(auto_call: Call) -> None:
    auto_call(
        "core.propose_rule",
        scope="ops",
        statement="Regel.",
        evidence={"quote": "q", "refs": [MAIL]},
    )
    out = auto_call(
        "core.rule_retract", scope="ops", id="ops-0001", reason="Ines bat darum, 30.11."
    )
    assert out["status"] == "retracted"
    assert [d["verdict"] for d in out["decisions"]] == ["adopt", "retract"]
    assert out["decisions"][1]["decided_by"] == "grant:ops-agent"
    with pytest.raises(GroundnoteError) as exc:
        auto_call("core.rule_retract", scope="ops", id="ops-0001", reason="nochmal")
    assert exc.value.body()["error"] == "already-decided"
    assert auto_call("core.search", scope="ops", query="Regel")["bundles"] == []


@pytest.mark.usefixtures("stored")
def test_an_agent_cannot_retract_what_a_person_adopted(call: Call, decide: Decide) -> None:
    propose(call, "Regel.", [MAIL])
    decide("sales-0001", "adopt")
    with pytest.raises(GroundnoteError) as exc:
        call("core.rule_retract", scope="sales", id="sales-0001", reason="weg damit")
    body = exc.value.body()
    assert body["error"] == "right-missing"
    assert "person" in body["remedy"]


def test_a_reader_cannot_propose(runtime: Runtime, scope: str) -> None:
    principal, _ = make_principal(runtime, "reader", {scope: Right.READ}, ["mcp"])
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(
            runtime.registry.get("core.propose_rule"),
            {"scope": scope, "statement": "x", "evidence": {"quote": "q", "refs": [MAIL]}},
            principal=principal,
            channel="mcp",
        )
    assert exc.value.body()["error"] == "right-missing"
