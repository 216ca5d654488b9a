"""The explorer pages in headless Chromium: from a pending rule's card to the rule and on to
the mail it quotes and back, and a hostile store shown literally, never as markup."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from groundnote.auth import issue_login_link
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.structure.helpers import AgentWrites
from tests.web.mails import SUPPLIER_MAIL, store_supplier_mail

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAIL = SUPPLIER_MAIL
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'
JS_URL = "javascript:alert(3)"
HOSTILE = f"{SCRIPT} {IMG} {JS_URL}"
# A Message-ID may hold quotes, an ampersand and `=`: the page's links must carry it intact.
HOSTILE_MAIL = "mail:<\"'&onmouseover=alert(4)@evil.example>"

# What an injected element or handler would leave in the DOM; empty on a page that escaped all.
INJECTED = """() => {
  const all = [...document.querySelectorAll('*')];
  return {
    elements: document.querySelectorAll(
      'script, img, iframe, object, embed, foreignObject, svg:not(svg.neighbourhood), svg svg'
    ).length,
    handlers: all.flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on'))
                                                .map(a => e.tagName + ' ' + a.name)),
    scripted: [...document.querySelectorAll('[href], [src], [action]')]
      .map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action'))
      .filter(v => /^\\s*javascript:/i.test(v)),
  };
}"""


def _signed_in(runtime: Runtime, browser: Browser, ruth: str, live_server: str) -> BrowserContext:
    token = issue_login_link(runtime.home.instance, ruth, runtime.home.clock)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server}/approval/login?token={token}")
    page.wait_for_url(f"{live_server}/approval")
    page.close()
    return context


def test_from_a_pending_rules_card_to_its_rule_its_mail_and_back(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    call: Call,
    live_server: str,
    browser: Browser,
) -> None:
    store_supplier_mail(call, attachment_text="Frei Haus ab 500 Euro Warenwert.")
    north = agent_writes.create("Vertrieb Nord")
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}", f"attachment/{MAIL}#1"]},
    )
    agent_writes.link(f"rule/{rule['id']}", f"entity/{north}", "concerns")
    context = _signed_in(runtime, browser, ruth, live_server)
    page = context.new_page()

    page.goto(f"{live_server}/approval/proposals?scope=sales")
    card = page.locator(f"#{rule['id']}")
    card.get_by_role("link", name="Lieferbedingungen ab März (2025-02-20)").wait_for()
    card.get_by_role("link", name=rule["id"]).click()
    page.wait_for_url(f"{live_server}/approval/rules/{rule['id']}")
    assert page.locator("h1").inner_text() == f"Rule {rule['id']}"
    assert "Vertrieb Nord" in page.locator("#links ~ article").first.inner_text()

    page.locator("ul.sources").get_by_role(
        "link", name="Lieferbedingungen ab März (2025-02-20)"
    ).click()
    page.wait_for_url(f"{live_server}/approval/source?**")
    assert page.locator("h1").text_content() == "mail Lieferbedingungen ab März"
    assert page.locator("article#source pre.body").inner_text() == (
        "Ab dem 1. März liefern wir nur noch frei Haus."
    )
    assert "ines@kunde.example" in page.locator("article#source dl").inner_text()
    assert page.locator("#attachment-1 pre").inner_text() == "Frei Haus ab 500 Euro Warenwert."
    citing = page.locator("ul.rules").get_by_role("link", name=rule["id"])
    assert citing.count() == 1

    page.go_back()
    page.wait_for_url(f"{live_server}/approval/rules/{rule['id']}")
    page.locator("ul.sources").get_by_role("link", name="konditionen.pdf", exact=False).click()
    page.wait_for_url(f"{live_server}/approval/source?**#attachment-1")
    assert page.evaluate("location.hash") == "#attachment-1"

    citing = page.locator("ul.rules").get_by_role("link", name=rule["id"])
    citing.click()
    page.wait_for_url(f"{live_server}/approval/rules/{rule['id']}")
    page.get_by_role("button", name="Adopt").click()
    assert page.locator(".flash-ok").inner_text() == f"Rule {rule['id']} is adopted now."
    # Adopted, it is no proposal any more, and its page still shows it with its mail.
    assert page.locator(f"#{rule['id']} h3 .status-adopted").text_content() == "adopted"
    assert page.locator("ul.sources a").count() == 2
    context.close()


def test_a_hostile_store_is_shown_literally_on_the_explorer_pages(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    call: Call,
    live_server: str,
    browser: Browser,
) -> None:
    call(
        "core.store_source",
        scope="sales",
        source={
            "kind": "mail",
            "id": HOSTILE_MAIL,
            "subject": HOSTILE,
            "sender": JS_URL,
            "to": [IMG, SCRIPT],
            "cc": [JS_URL],
            "body": f'{HOSTILE}\n<a href="{JS_URL}">click</a>',
            "attachments": [
                {"filename": IMG, "media_type": "text/html", "text": HOSTILE},
            ],
        },
    )
    evil = agent_writes.create(HOSTILE, reason=HOSTILE, evidence=JS_URL)
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement=HOSTILE,
        evidence={
            "quote": HOSTILE,
            "refs": [f"source/{HOSTILE_MAIL}", f"attachment/{HOSTILE_MAIL}#1"],
        },
    )
    agent_writes.link(f"rule/{rule['id']}", f"entity/{evil}", "concerns", reason=HOSTILE)
    agent_writes.link(f"source/{HOSTILE_MAIL}", f"entity/{evil}", "mentions", reason=HOSTILE)
    context = _signed_in(runtime, browser, ruth, live_server)
    page: Page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    source_path = f"/approval/source?scope=sales&id={quote(HOSTILE_MAIL, safe='')}"
    for path in (
        source_path,
        f"/approval/rules/{rule['id']}",
        "/approval/proposals?scope=sales",
        "/approval/structure?scope=sales",
        "/approval/scope?scope=sales",
        "/approval/tree?scope=sales",
        f"/approval/entities/{evil}",
        f"/approval/search?scope=sales&proposed=true&q={quote('alert')}",
        "/approval/activity?scope=sales&reads=true&operation=create_entity",
    ):
        response = page.goto(f"{live_server}{path}")
        assert response is not None and response.status == 200, path
        assert page.evaluate(INJECTED) == {"elements": 0, "handlers": [], "scripted": []}, path
        if path.startswith(("/approval/scope", "/approval/activity")):
            continue  # the log names refs and actors, not the hostile texts
        text = page.locator("main").inner_text()
        for literal in (SCRIPT, IMG, JS_URL):
            assert literal in text, (path, literal)

    # The picture's labels are SVG text, escaped like the rest: the hostile name is its text.
    page.goto(f"{live_server}/approval/entities/{evil}")
    picture = page.locator("svg.neighbourhood")
    assert picture.locator("title").first.text_content() == f"The neighbourhood of {HOSTILE}"
    assert any(SCRIPT in t for t in picture.locator("g title").all_text_contents())

    page.goto(f"{live_server}{source_path}")
    assert page.locator("h1").text_content() == f"mail {HOSTILE}"
    assert page.locator("article#source pre.body").inner_text() == (
        f'{HOSTILE}\n<a href="{JS_URL}">click</a>'
    )
    assert page.locator("#attachment-1 h3").inner_text().startswith(IMG)
    assert HOSTILE_MAIL in page.locator("article#source code").inner_text()
    # The links on the rule page carry the hostile id intact and lead back to this very mail.
    page.goto(f"{live_server}/approval/rules/{rule['id']}")
    page.locator("ul.sources a").first.click()
    page.wait_for_url(f"{live_server}/approval/source?**")
    assert page.locator("article#source code").inner_text() == HOSTILE_MAIL
    assert dialogs == []
    context.close()


def test_from_the_overview_to_an_entity_its_history_a_rule_its_mail_and_back(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    call: Call,
    live_server: str,
    browser: Browser,
) -> None:
    store_supplier_mail(call, attachment_text=None)
    top = agent_writes.create("Vertrieb")
    north = agent_writes.create("Vertrieb Nord", top, aliases=["VN"])
    agent_writes.rename(north, "Vertrieb Nordost")
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}"]},
    )
    link = agent_writes.link(f"rule/{rule['id']}", f"entity/{north}", "concerns")
    context = _signed_in(runtime, browser, ruth, live_server)
    page = context.new_page()
    # The person confirms the link on the structure page first, so it counts as linked.
    page.goto(f"{live_server}/approval/structure?scope=sales")
    page.locator(f"#{link}").get_by_role("button", name="Confirm").click()
    assert page.locator(".flash-ok").inner_text() == f"Confirmed the concerns link {link}."

    page.goto(f"{live_server}/approval")
    page.get_by_role("link", name="overview").first.click()
    page.wait_for_url(f"{live_server}/approval/scope?scope=sales")
    assert page.locator("h1").inner_text() == "Scope sales"
    page.get_by_role("link", name="Browse the tree: 1 at the top level →").click()
    page.wait_for_url(f"{live_server}/approval/tree?scope=sales")
    page.get_by_role("link", name="1 children of Vertrieb").click()
    page.wait_for_url(f"{live_server}/approval/tree?scope=sales&id={top}")
    page.locator("table.tree").get_by_role("link", name="Vertrieb Nordost").click()
    page.wait_for_url(f"{live_server}/approval/entities/{north}")
    assert page.locator("h1").text_content() == f"department Vertrieb Nordost {north}"
    history = page.locator("ol.timeline > li")
    assert history.count() == 2
    assert "name: Vertrieb Nord → Vertrieb Nordost" in history.first.inner_text()
    assert "alias added: VN" in history.last.inner_text()
    assert page.locator("svg.neighbourhood g.node-rule").count() == 1

    page.locator("#links").locator("xpath=..").get_by_role(
        "link", name="Ab März wird nur frei Haus geliefert."
    ).click()
    page.wait_for_url(f"{live_server}/approval/rules/{rule['id']}")
    page.locator("ul.sources").get_by_role(
        "link", name="Lieferbedingungen ab März (2025-02-20)"
    ).click()
    page.wait_for_url(f"{live_server}/approval/source?**")
    assert page.locator("article#source pre.body").inner_text() == (
        "Ab dem 1. März liefern wir nur noch frei Haus."
    )
    page.go_back()
    page.wait_for_url(f"{live_server}/approval/rules/{rule['id']}")
    page.go_back()
    page.wait_for_url(f"{live_server}/approval/entities/{north}")
    assert page.locator("ol.timeline > li").count() == 2
    context.close()


def test_batch_confirm_in_the_browser(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    live_server: str,
    browser: Browser,
) -> None:
    made = [agent_writes.create(f"Team {n}") for n in range(3)]
    context = _signed_in(runtime, browser, ruth, live_server)
    page = context.new_page()
    page.goto(f"{live_server}/approval/structure?scope=sales")
    for entity_id in made[:2]:
        page.locator(f"#{entity_id}").get_by_role("checkbox").check()
    page.get_by_role("button", name="Confirm ticked items").click()
    page.wait_for_url(f"{live_server}/approval/structure?scope=sales&page=1")
    assert page.locator(".flash-ok").inner_text().startswith("2 of 2 confirmed.")
    assert page.locator("article.item").count() == 1
    assert page.locator(f"#{made[2]}").count() == 1
    with runtime.home.scope_db("sales").read() as conn:
        targets = [r[0] for r in conn.execute("SELECT target FROM review ORDER BY seq")]
    assert sorted(targets) == [f"entity/{made[0]}@1", f"entity/{made[1]}@1"]
    context.close()
