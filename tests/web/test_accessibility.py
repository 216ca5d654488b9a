"""axe-core (pinned in tests/web/node/package.json; `npm ci` there installs it, .ci/run does)
checks the approval and explorer pages in Chromium: no serious or critical violation."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser

from groundnote.auth import issue_login_link
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.structure.helpers import AgentWrites
from tests.web.mails import SUPPLIER_MAIL, store_supplier_mail

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = Path(__file__).parent / "node" / "node_modules" / "axe-core" / "axe.min.js"
MAIL = SUPPLIER_MAIL


def test_the_pages_have_no_serious_or_critical_violations(
    runtime: Runtime,
    agent_writes: AgentWrites,
    ruth: str,
    call: Call,
    live_server: str,
    browser: Browser,
) -> None:
    assert AXE.exists(), f"run `npm ci` in {AXE.parents[2]} (.ci/run does) to install axe-core"
    store_supplier_mail(call, attachment_text="Frei Haus.")
    north = agent_writes.create("Vertrieb Nord", evidence=MAIL)
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Ab März wird nur frei Haus geliefert.",
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}", f"attachment/{MAIL}#1"]},
    )
    agent_writes.link(f"rule/{rule['id']}", f"entity/{north}", "concerns")
    agent_writes.link(f"source/{MAIL}", f"entity/{north}", "mentions")
    agent_writes.create("Kunde Meier", north, type="customer")
    token = issue_login_link(runtime.home.instance, ruth, runtime.home.clock)
    # The pages forbid every script by their policy; axe is the test's, so the policy is
    # bypassed for this context only.
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server}/approval/login?token={token}")
    page.wait_for_url(f"{live_server}/approval")
    axe = AXE.read_text("utf-8")

    found: dict[str, list[str]] = {}
    for path in (
        "/approval",
        "/approval/structure?scope=sales",
        "/approval/proposals?scope=sales",
        f"/approval/rules/{rule['id']}",
        f"/approval/source?scope=sales&id={quote(MAIL, safe='')}",
        "/approval/scope?scope=sales",
        "/approval/tree?scope=sales",
        f"/approval/tree?scope=sales&id={north}",
        f"/approval/entities/{north}",
        "/approval/search?scope=sales",
        "/approval/search?scope=sales&q=frei+Haus&proposed=true",
        "/approval/activity?scope=sales",
    ):
        response = page.goto(f"{live_server}{path}")
        assert response is not None and response.status == 200, path
        page.evaluate(axe)
        violations = page.evaluate(
            "async () => (await axe.run(document)).violations.map(v => "
            "({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))"
        )
        assert isinstance(violations, list)
        bad = [
            f"{v['id']} ({v['impact']}): {v['nodes'][:3]}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
        if bad:
            found[path] = bad
    context.close()
    assert found == {}
