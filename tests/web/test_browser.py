"""A person in headless Chromium against a real uvicorn: sign in, decide, see the result."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from groundnote.auth import issue_login_link
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.structure.helpers import AgentWrites, current, path_names

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _shot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def test_a_person_signs_in_and_decides_in_chromium(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    call: Call,
    live_server: str,
    browser: Browser,
    tmp_path: Path,
) -> None:
    top = agent_writes.create("Vertrieb", type="organisation")
    buying = agent_writes.create("Einkauf", type="organisation")
    north = agent_writes.create("Nord", top)
    with runtime.home.scope_db("sales").write() as conn:  # confirmed earlier by a person
        for entity_id in (top, buying, north):
            conn.execute(
                "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, "
                "valid_from, change, channel, changed_by, changed_at, reason) SELECT id, 2, type, "
                "name, aliases, parent_id, 'active', valid_from, 'confirm', 'approval', "
                "'person:ruth', changed_at, 'ok' FROM entity_version WHERE id = ?",
                (entity_id,),
            )
    agent_writes.move(north, buying, reason="Nord reports to Einkauf")
    hostile = agent_writes.create("<script>alert(1)</script>", top)
    fresh = agent_writes.create("Team Kiel", top, reason="named in the mail of Ines")
    link = agent_writes.link(f"entity/{fresh}", f"entity/{buying}", "belongs_to")
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
    token = issue_login_link(runtime.home.instance, ruth, runtime.home.clock)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server}/approval/login?token={token}")
    page.wait_for_url(f"{live_server}/approval")
    assert page.title().startswith("(5) Waiting for you")
    _shot(page, tmp_path, "approval")

    page.goto(f"{live_server}/approval/structure?scope=sales")
    assert page.title().startswith("(4) Structure changes")
    assert "<script>alert(1)</script>" in page.locator(f"#{hostile} h3").inner_text()
    assert page.evaluate("document.scripts.length") == 0
    _shot(page, tmp_path, "structure")

    page.locator(f"#{fresh}").get_by_role("button", name="Confirm").click()
    assert page.locator(".flash-ok").inner_text() == f"Confirmed Team Kiel ({fresh})."
    assert current(runtime, fresh)["status"] == "active"

    item = page.locator(f"#{north}")
    item.locator("summary", has_text="Revert").click()
    item.get_by_placeholder("why it is wrong").fill("Nord belongs to Vertrieb")
    item.get_by_role("button", name="Revert change").click()
    assert "Vertrieb › Nord" in page.locator(".flash-ok").inner_text()
    assert path_names(runtime, north) == ["Vertrieb", "Nord"]

    item = page.locator(f"#{link}")
    item.locator("summary", has_text="Reject").click()
    item.get_by_label("Reason").fill("Kiel stays in Vertrieb")
    item.get_by_role("button", name="Reject link").click()
    assert page.locator(".flash-ok").inner_text() == f"Rejected the belongs_to link {link}."

    page.goto(f"{live_server}/approval/proposals?scope=sales")
    _shot(page, tmp_path, "proposals")
    page.locator(f"#{rule['id']}").get_by_role("button", name="Adopt").click()
    assert page.locator(".flash-ok").inner_text() == f"Rule {rule['id']} is adopted now."
    page.goto(f"{live_server}/approval/rules/{rule['id']}")
    _shot(page, tmp_path, "rule")

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.add_cookies(context.cookies())
    small = phone.new_page()
    small.goto(f"{live_server}/approval/structure?scope=sales")
    width = small.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    _shot(small, tmp_path, "structure-phone")

    refused = context.request.post(
        f"{live_server}/approval/act/structure.review",
        form={"target": f"entity/{hostile}@1", "verdict": "confirm"},
    )
    assert refused.status == 403
    forged = context.request.post(
        f"{live_server}/approval/act/structure.review",
        form={"target": f"entity/{hostile}@1", "verdict": "confirm", "csrf": "forged" * 8},
        headers={"Origin": "https://evil.example"},
    )
    assert forged.status == 403
    assert current(runtime, hostile)["status"] == "unconfirmed"
    phone.close()
    context.close()
