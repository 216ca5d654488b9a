"""read_rule, list_rules, list_proposals, list_rejected, provenance, and the core tool set."""

from __future__ import annotations

import pytest

from groundnote import core
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.core.conftest import Decide, mail, meeting, propose

M1 = "source/mail:<m1@example.org>"


@pytest.fixture
def three(call: Call, decide: Decide) -> None:
    call(
        "core.store_source",
        scope="sales",
        source=mail(
            1,
            cc=["chef@example.org"],
            attachments=[
                {
                    "filename": "a.txt",
                    "media_type": "text/plain",
                    "text": "drei Prozent Rabatt im Norden",
                },
                {
                    "filename": "b.pdf",
                    "media_type": "application/pdf",
                    "size": 10,
                    "sha256": "0" * 64,
                },
            ],
        ),
    )
    call("core.store_source", scope="sales", source=meeting("k1"))
    propose(
        call,
        "Rabatt Nord drei Prozent.",
        [M1, "attachment/mail:<m1@example.org>#1"],
        quote="drei Prozent Rabatt im Norden",
        valid_from="2026-01-01",
        valid_to="2026-12-31",
    )
    propose(
        call, "Spedition Huber für Österreich.", ["source/jamie:k1"], quote="per Spedition Huber"
    )
    propose(call, "Kantine schließt.", [M1])
    decide("sales-0001", "adopt")
    decide("sales-0003", "reject", "Nicht unser Thema.")


@pytest.mark.usefixtures("three")
def test_read_rule_has_the_hint_and_the_decisions(call: Call) -> None:
    out = call("core.read_rule", scope="sales", id="sales-0001")
    assert out["status"] == "adopted"
    assert out["still_valid"] == "Valid from 2026-01-01 until 2026-12-31."
    assert [(d["verdict"], d["decided_by"]) for d in out["decisions"]] == [("adopt", "person:ruth")]
    assert out["next"][0]["tool"] == "provenance"
    with pytest.raises(GroundnoteError) as exc:
        call("core.read_rule", scope="sales", id="sales-0042")
    assert exc.value.body()["error"] == "not-found"


@pytest.mark.usefixtures("three")
def test_list_rules_filters(call: Call) -> None:
    def ids(**filters: object) -> list[str]:
        return [
            r["id"]
            for r in call("core.list_rules", channel="api", scope="sales", **filters)["rules"]
        ]

    assert ids() == ["sales-0003", "sales-0002", "sales-0001"]
    assert ids(status="adopted") == ["sales-0001"]
    assert ids(valid_on="2027-03-01") == ["sales-0003", "sales-0002"]
    assert ids(text="Oesterreich") == ["sales-0002"]
    with pytest.raises(GroundnoteError):
        ids(text="--")
    page = call("core.list_rules", channel="api", scope="sales", limit=2)
    assert page["total"] == 3 and page["next"][0]["why"].endswith("offset 2")


@pytest.mark.usefixtures("three")
def test_proposals_and_rejected(call: Call) -> None:
    proposals = call("core.list_proposals", channel="api", scope="sales")["rules"]
    assert [r["id"] for r in proposals] == ["sales-0002"]
    assert proposals[0]["approval_url"].endswith("/approval/rules/sales-0002")
    rejected = call("core.list_rejected", channel="api", scope="sales")["rules"]
    assert [(r["id"], r["decisions"][0]["reason"]) for r in rejected] == [
        ("sales-0003", "Nicht unser Thema.")
    ]


@pytest.mark.usefixtures("three")
def test_provenance_traces_rule_sources_attachments_decisions(call: Call) -> None:
    out = call("core.provenance", scope="sales", id="sales-0001")
    assert out["proposed_by"] == "grant:agent"
    [source] = out["sources"]
    assert source["ref"] == M1 and source["stored_by"] == "grant:agent"
    assert source["who"] == [
        "Ines Kraft <ines@example.org>",
        "vertrieb@example.org",
        "chef@example.org",
    ]
    assert source["quote_found"] is True
    assert [(a["filename"], a["cited"]) for a in source["attachments"]] == [
        ("a.txt", True),
        ("b.pdf", False),
    ]
    assert [d["decided_by"] for d in out["decisions"]] == ["person:ruth"]
    meeting_rule = call("core.provenance", scope="sales", id="sales-0002")
    assert meeting_rule["sources"][0]["who"] == ["Ines Kraft", "Tom Berger"]
    assert meeting_rule["sources"][0]["quote_found"] is True


def test_exactly_seven_core_tools_on_mcp() -> None:
    mine = [c for c in core.CAPABILITIES if c.name not in ("core.list_scopes", "core.status")]
    assert sorted(c.mcp.tool for c in mine if c.mcp) == sorted(
        [
            "search",
            "read_rule",
            "provenance",
            "propose_rule",
            "store_source",
            "feedback",
            "rule_retract",
        ]
    )
    assert all(c.http is not None and c.http.path.startswith("/v1/") for c in mine)
    assert all(c.cli is not None for c in mine)


def test_the_runtime_registry_holds_the_core_capabilities(runtime: Runtime) -> None:
    names = {c.name for c in runtime.registry}
    assert {c.name for c in core.CAPABILITIES} <= names
    assert not any(n.startswith("decision.") for n in names)
