"""decision.rule_decide served on the approval channel: persons adopt, reject, retract."""

from __future__ import annotations

from typing import Any

from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.structure.helpers import Approver


def _propose(call: Call, statement: str) -> str:
    call(
        "core.store_source",
        scope="sales",
        source={
            "kind": "mail",
            "id": "mail:<m1@example.org>",
            "subject": "Rabatt Nord",
            "sent_at": "2026-10-01T08:00:00.000Z",
            "body": statement,
        },
    )
    out: dict[str, Any] = call(
        "core.propose_rule",
        scope="sales",
        statement=statement,
        evidence={"quote": statement[:40], "refs": ["source/mail:<m1@example.org>"]},
    )
    return str(out["id"])


def test_a_person_adopts_and_retracts_a_rule_on_the_approval_channel(
    runtime: Runtime, call: Call, approver: Approver
) -> None:
    rule_id = _propose(call, "Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    path = f"/v1/rules/{rule_id}/decision"
    headers = {"X-CSRF-Token": approver.csrf}
    adopted = approver.client.post(
        path, json={"scope": "sales", "verdict": "adopt"}, headers=headers
    )
    assert adopted.status_code == 200, adopted.text
    assert adopted.json()["status"] == "adopted"
    again = approver.client.post(path, json={"scope": "sales", "verdict": "adopt"}, headers=headers)
    assert again.status_code == 409 and again.json()["error"] == "already-decided"
    no_reason = approver.client.post(
        path, json={"scope": "sales", "verdict": "retract"}, headers=headers
    )
    assert no_reason.status_code == 400 and no_reason.json()["error"] == "reason-missing"
    retracted = approver.client.post(
        path,
        json={"scope": "sales", "verdict": "retract", "reason": "Aktion beendet"},
        headers=headers,
    )
    assert retracted.status_code == 200
    assert retracted.json()["decisions"][-1]["decided_by"] == "person:ruth"
