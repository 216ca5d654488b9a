"""The approval pages over HTTP: what they show, what they escape, which POSTs they refuse."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from groundnote.auth import issue_login_link
from groundnote.runtime import Runtime
from groundnote.surfaces.web import PAGE_SIZE
from tests.conftest import Call
from tests.structure.helpers import AgentWrites, Approver, current

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def _title(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found
    return found.group(1)


def test_without_a_session_the_pages_ask_to_sign_in(web: TestClient) -> None:
    for path in (
        "/approval",
        "/approval/structure?scope=sales",
        "/approval/rules/sales-0001",
        "/approval/proposals?scope=sales",
    ):
        response = web.get(path)
        assert response.status_code == 401
        assert "groundnote person link NAME" in response.text


def test_a_login_link_works_once_and_sets_a_strict_http_only_cookie(
    runtime: Runtime, web: TestClient, ruth: str, scope: str
) -> None:
    token = issue_login_link(runtime.home.instance, ruth, runtime.home.clock)
    first = web.get(f"/approval/login?token={token}")
    assert first.status_code == 200
    cookie = first.headers["set-cookie"]
    assert "gn_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert 'http-equiv="refresh"' in first.text
    assert web.get("/approval").status_code == 200
    second = TestClient(web.app, base_url="http://127.0.0.1:8765").get(
        f"/approval/login?token={token}"
    )
    assert second.status_code == 401


def test_structure_page_shows_paths_people_reasons_and_links_newest_first(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, clock: Any, call: Call
) -> None:
    top = agent_writes.create("Vertrieb", type="organisation")
    other = agent_writes.create("Einkauf", type="organisation")
    for entity_id in (top, other):
        approver.review(f"entity/{entity_id}@1", "confirm")
    north = agent_writes.create(
        "Nord", top, reason="named in the mail of Ines", evidence="mail:<m1@x>"
    )
    approver.review(f"entity/{north}@1", "confirm")
    clock.moment = clock.moment.replace(hour=10)
    agent_writes.move(north, other, reason="Nord reports to Einkauf now")
    clock.moment = clock.moment.replace(hour=11)
    fresh = agent_writes.create("Team Kiel", other)
    link = agent_writes.link(f"entity/{fresh}", f"entity/{top}", "belongs_to", confidence=0.4)

    html = approver.client.get("/approval/structure?scope=sales").text
    assert _title(html).startswith("(3) Structure changes · sales")
    assert html.index(f'id="{link}"') < html.index(f'id="{fresh}"') < html.index(f'id="{north}"')
    assert "Nord reports to Einkauf now" in html and "grant:agent" in html and "via mcp" in html
    section = html[html.index(f'id="{north}"') :]
    assert "<b>moved</b>" in section and "Vertrieb" in section and "Einkauf" in section
    assert f'value="entity/{north}@3"' in section  # the forms target the current version
    assert "0.40" in html and "belongs_to" in html


def test_every_stored_string_is_escaped(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    evil = agent_writes.create(HOSTILE, reason=HOSTILE, evidence=HOSTILE, aliases=[HOSTILE])
    other = agent_writes.create("Nord")
    agent_writes.link(f"entity/{evil}", f"entity/{other}", "same_as", reason=HOSTILE)
    call(
        "core.store_source",
        scope="sales",
        source={"kind": "mail", "id": "mail:<m1@example.org>", "subject": HOSTILE, "body": HOSTILE},
    )
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement=HOSTILE,
        evidence={"quote": HOSTILE, "refs": ["source/mail:<m1@example.org>"]},
    )
    agent_writes.link(f"rule/{rule['id']}", f"entity/{evil}", "concerns", reason=HOSTILE)
    for path in (
        "/approval",
        "/approval/structure?scope=sales",
        f"/approval/rules/{rule['id']}",
        "/approval/proposals?scope=sales",
        "/approval/source?scope=sales&id=mail%3A%3Cm1%40example.org%3E",
    ):
        html = approver.client.get(path).text
        assert HOSTILE not in html, path
        assert ESCAPED in html, path
        assert "<script" not in html.lower(), path


def test_a_form_decision_redirects_back_with_a_flash_message(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    back = "/approval/structure?scope=sales&page=1"
    response = approver.form(
        "structure.review", target=f"entity/{north}@1", verdict="confirm", back=back
    )
    assert response.status_code == 303 and response.headers["location"] == back
    page = approver.client.get(back)
    assert f"Confirmed Vertrieb Nord ({north})." in page.text
    assert 'class="flash flash-ok"' in page.text
    assert "Confirmed Vertrieb" not in approver.client.get(back).text  # shown once
    assert current(runtime, north)["status"] == "active"

    late = approver.form("structure.review", target=f"entity/{north}@1", verdict="confirm")
    assert late.headers["location"] == "/approval"
    flashed = approver.client.get("/approval").text
    assert 'class="flash flash-error"' in flashed and "decided already" in flashed


def test_a_redirect_never_leaves_the_approval_pages(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Nord")
    response = approver.form(
        "structure.review",
        target=f"entity/{north}@1",
        verdict="confirm",
        back="https://evil.example/",
    )
    assert response.headers["location"] == "/approval"


def test_posts_without_the_token_or_from_another_site_are_refused(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    north = agent_writes.create("Nord")
    fields = {"target": f"entity/{north}@1", "verdict": "confirm"}
    client = approver.client
    no_token = client.post("/approval/act/structure.review", data=fields, follow_redirects=False)
    wrong = client.post(
        "/approval/act/structure.review",
        data={**fields, "csrf": "x" * 43},
        follow_redirects=False,
    )
    other_origin = client.post(
        "/approval/act/structure.review",
        data={**fields, "csrf": approver.csrf},
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    cross_site = client.post(
        "/approval/act/structure.review",
        data={**fields, "csrf": approver.csrf},
        headers={"Sec-Fetch-Site": "cross-site"},
        follow_redirects=False,
    )
    for response in (no_token, wrong, other_origin, cross_site):
        assert response.status_code == 403
        assert "Nothing was changed" in response.text
    assert current(runtime, north)["status"] == "unconfirmed"

    same_origin = client.post(
        "/approval/act/structure.review",
        data={**fields, "csrf": approver.csrf},
        headers={"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"},
        follow_redirects=False,
    )
    assert same_origin.status_code == 303
    assert current(runtime, north)["status"] == "active"


def test_long_lists_are_paged(agent_writes: AgentWrites, approver: Approver) -> None:
    for n in range(PAGE_SIZE + 3):
        agent_writes.create(f"Filiale {n:02d}")
    first = approver.client.get("/approval/structure?scope=sales").text
    assert first.count('class="item"') == PAGE_SIZE
    assert "page 1 of 2" in first and 'rel="next"' in first
    second = approver.client.get("/approval/structure?scope=sales&page=2").text
    assert second.count('class="item"') == 3 and 'rel="prev"' in second


def test_rule_page_and_proposals_decide_rules_and_their_concerns_links(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    north = agent_writes.create("Vertrieb Nord")
    call(
        "core.store_source",
        scope="sales",
        source={
            "kind": "mail",
            "id": "mail:<m1@example.org>",
            "subject": "Rabatt Nord",
            "body": "Drei Prozent für Nord.",
        },
    )
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Kunden im Gebiet Nord erhalten drei Prozent Rabatt.",
        evidence={"quote": "Drei Prozent", "refs": ["source/mail:<m1@example.org>"]},
    )
    link = agent_writes.link(f"rule/{rule['id']}", f"entity/{north}", "concerns")
    page = approver.client.get(f"/approval/rules/{rule['id']}").text
    assert "Rabatt Nord" in page and "Vertrieb Nord" in page and f'id="{link}"' in page
    proposals = approver.client.get("/approval/proposals?scope=sales").text
    assert _title(proposals).startswith("(1) Proposed rules · sales")

    back = f"/approval/rules/{rule['id']}"
    approver.form(
        "structure.review",
        target=f"link/{link}",
        verdict="reject",
        reason="the rule is about all regions",
        back=back,
    )
    assert "Rejected the concerns link" in approver.client.get(back).text
    approver.form("decision.rule_decide", scope="sales", id=rule["id"], verdict="adopt", back=back)
    adopted = approver.client.get(back).text
    assert f"Rule {rule['id']} is adopted now." in adopted
    assert "No proposed concerns link waits" in adopted


def test_logout_ends_the_session(approver: Approver) -> None:
    response = approver.client.post(
        "/approval/logout", data={"csrf": approver.csrf}, follow_redirects=False
    )
    assert response.status_code == 303
    assert approver.client.get("/approval").status_code == 401


def test_the_pages_send_a_policy_that_forbids_scripts(approver: Approver) -> None:
    response = approver.client.get("/approval")
    assert "default-src 'none'" in response.headers["content-security-policy"]
    css = approver.client.get("/approval/static/approval.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
