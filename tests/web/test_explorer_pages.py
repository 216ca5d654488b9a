"""The pages that show the store beside the approval pages: a rule of any status and a source
(mail or meeting) with everything pointing at it, read through the approval capabilities."""

from __future__ import annotations

import re
from urllib.parse import quote

from groundnote.auth.principal import Right
from groundnote.runtime import Runtime
from tests.conftest import Call, make_principal
from tests.structure.helpers import AgentWrites, Approver

MAIL = "mail:<m1@example.org>"


def _source_url(scope: str, source_id: str) -> str:
    return f"/approval/source?scope={scope}&id={quote(source_id, safe='')}"


def _store_mail(call: Call, scope: str = "sales", source_id: str = MAIL, **fields: object) -> None:
    source = {
        "kind": "mail",
        "id": source_id,
        "subject": "Lieferbedingungen ab März",
        "sender": "ines@kunde.example",
        "to": ["vertrieb@firma.example", "ruth@firma.example"],
        "cc": ["chef@firma.example"],
        "sent_at": "2025-02-20T08:15:00Z",
        "body": "Ab dem 1. März liefern wir nur noch frei Haus.\nGruß, Ines",
        "attachments": [
            {
                "filename": "konditionen.pdf",
                "media_type": "application/pdf",
                "text": "Frei Haus ab 500 Euro Warenwert.",
            },
            {"filename": "logo.png", "media_type": "image/png", "size": 2048, "sha256": "a" * 64},
        ],
        **fields,
    }
    call("core.store_source", scope=scope, source=source)


def test_a_source_page_shows_the_whole_mail_and_what_points_at_it(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _store_mail(call)
    north = agent_writes.create("Vertrieb Nord")
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}", f"attachment/{MAIL}#1"]},
    )
    link = agent_writes.link(f"source/{MAIL}", f"entity/{north}", "mentions")

    response = approver.client.get(_source_url("sales", MAIL))
    assert response.status_code == 200, response.text
    html = response.text
    for shown in (
        "Lieferbedingungen ab März",
        "ines@kunde.example",
        "vertrieb@firma.example, ruth@firma.example",
        "chef@firma.example",
        "2025-02-20 08:15 UTC",
        "Ab dem 1. März liefern wir nur noch frei Haus.\nGruß, Ines",
        "konditionen.pdf",
        "application/pdf",
        "Frei Haus ab 500 Euro Warenwert.",
        "logo.png",
        "2048 bytes",
        "No text was extracted from this file.",
        "Vertrieb Nord",
        "mentions",
    ):
        assert shown in html, shown
    assert 'id="attachment-1"' in html and 'id="attachment-2"' in html
    assert f'href="/approval/rules/{rule["id"]}"' in html
    assert link and "proposed" in html


def test_a_rule_page_shows_any_rule_with_its_sources_linked_and_what_it_concerns(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _store_mail(call)
    north = agent_writes.create("Vertrieb Nord")
    south = agent_writes.create("Vertrieb Süd")
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}", f"attachment/{MAIL}#1"]},
    )
    confirmed = agent_writes.link(f"rule/{rule['id']}", f"entity/{north}", "concerns")
    agent_writes.link(f"rule/{rule['id']}", f"entity/{south}", "concerns")
    back = f"/approval/rules/{rule['id']}"
    approver.form("structure.review", target=f"link/{confirmed}", verdict="confirm", back=back)
    approver.form("decision.rule_decide", scope="sales", id=rule["id"], verdict="adopt", back=back)

    html = approver.client.get(back).text  # adopted now, no longer a proposal
    assert "Ab März wird nur frei Haus geliefert." in html and "status-adopted" in html
    assert "<q>frei Haus</q>" in html
    assert re.search(r"<b>adopt</b> by person:ruth via approval", html)
    source_href = _source_url("sales", MAIL).replace("&", "&amp;")
    assert f'href="{source_href}"' in html
    assert f'href="{source_href}#attachment-1"' in html
    concerned = html[html.index('id="concerns"') : html.index('id="links"')]
    assert "Vertrieb Nord" in concerned and "confirmed" in concerned
    assert "Vertrieb Süd" in concerned and "proposed" in concerned


def test_the_proposal_card_links_its_evidence_to_the_source_page(
    approver: Approver, call: Call
) -> None:
    _store_mail(call)
    call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}"]},
    )
    html = approver.client.get("/approval/proposals?scope=sales").text
    source_href = _source_url("sales", MAIL).replace("&", "&amp;")
    assert f'<a href="{source_href}">Lieferbedingungen ab März (2025-02-20)</a>' in html


def test_another_scopes_source_reads_like_a_missing_one(
    runtime: Runtime, approver: Approver, call: Call
) -> None:
    runtime.home.create_scope("buying")
    buyer, _ = make_principal(runtime, "buyer", {"buying": Right.PROPOSE}, ["mcp"])

    def buyer_call(name: str, /, **raw: object) -> dict[str, object]:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=buyer, channel="mcp")
        return dict(out.model_dump(mode="json"))

    _store_mail(buyer_call, scope="buying", source_id="mail:<only-buying@example.org>")
    _store_mail(call, scope="sales")
    assert (
        approver.client.get(_source_url("buying", "mail:<only-buying@example.org>")).status_code
        == 200
    )

    foreign = approver.client.get(_source_url("sales", "mail:<only-buying@example.org>"))
    missing = approver.client.get(_source_url("sales", "mail:<never-stored@example.org>"))
    assert foreign.status_code == missing.status_code == 404
    assert "Lieferbedingungen" not in foreign.text
    assert foreign.text.replace("only-buying", "X") == missing.text.replace("never-stored", "X")

    unknown_scope = approver.client.get(_source_url("nosuch", MAIL))
    assert unknown_scope.status_code == 403
    assert "This scope is not available" in unknown_scope.text


def test_a_meeting_reads_with_its_participants_and_transcript(
    approver: Approver, call: Call
) -> None:
    call(
        "core.store_source",
        scope="sales",
        source={
            "kind": "meeting",
            "id": "jamie:weekly-42",
            "title": "Vertrieb Weekly",
            "date": "2025-03-03",
            "participants": ["ruth@firma.example", "ines@kunde.example"],
            "transcript": "Ruth: Ab März frei Haus.\nInes: Einverstanden.",
        },
    )
    html = approver.client.get(_source_url("sales", "jamie:weekly-42")).text
    assert "<dt>participants</dt><dd>ruth@firma.example, ines@kunde.example</dd>" in html
    assert (
        "<h2>Transcript</h2>" in html and "Ruth: Ab März frei Haus.\nInes: Einverstanden." in html
    )
    assert "2025-03-03" in html and "<dt>from</dt>" not in html
