"""The explorer pages that show the whole store (issue 18): a scope's overview, its tree, an
entity with its history and neighbourhood, search, the operation log, batch confirm, and the
rule and source pages' lineage and thread; all read through approval capabilities."""

from __future__ import annotations

import re
from urllib.parse import quote

from groundnote.auth.principal import Principal, Right
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry
from tests.conftest import Call, make_principal
from tests.structure.helpers import AgentWrites, Approver, current

MAIL = "mail:<m1@example.org>"


def _mail(call: Call, source_id: str = MAIL, **fields: object) -> None:
    source = {
        "kind": "mail",
        "id": source_id,
        "subject": "Lieferbedingungen ab März",
        "sender": "ines@kunde.example",
        "to": ["vertrieb@firma.example"],
        "sent_at": "2025-02-20T08:15:00Z",
        "body": "Ab dem 1. März liefern wir nur noch frei Haus.",
        **fields,
    }
    call("core.store_source", scope="sales", source=source)


def _rule(call: Call, statement: str, **more: object) -> str:
    out = call(
        "core.propose_rule",
        scope="sales",
        statement=statement,
        evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}"]},
        **more,
    )
    return str(out["id"])


def test_the_scope_overview_counts_what_the_scope_holds_and_what_changed_last(
    agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _mail(call)
    north = agent_writes.create("Vertrieb Nord", type="department")
    agent_writes.create("Kunde Meier", north, type="customer")
    _rule(call, "Ab März wird nur frei Haus geliefert.")
    approver.client.get("/approval/structure?scope=sales")  # a page view: a read, not a change

    html = approver.client.get("/approval/scope?scope=sales").text
    tallies = re.sub(r"\s+", " ", html)
    for shown in (
        "<b>1</b> customer",
        "<b>1</b> department",
        "<b>1</b> proposed",
        "<b>1</b> mail",
        "<b>2</b> entity changes",
        "at the top level",
        'action="/approval/search"',
        'href="/approval/tree?scope=sales"',
    ):
        assert shown in tallies, shown
    latest = html[html.index('id="latest"') :]
    assert "create_entity" in latest and "propose" in latest and "store_source" in latest
    assert "approval_pending" not in latest  # page views are not activity
    assert f'href="/approval/entities/{north}"' in latest


def test_the_tree_goes_level_by_level_fifty_a_page(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    top = agent_writes.create("Vertrieb")
    kids = [agent_writes.create(f"Team {n:02d}", top) for n in range(55)]
    agent_writes.create("Kunde", kids[0], type="customer")

    level1 = approver.client.get("/approval/tree?scope=sales").text
    assert f'href="/approval/entities/{top}">Vertrieb</a>' in level1
    assert f'href="/approval/tree?scope=sales&amp;id={top}"' in level1

    page1 = approver.client.get(f"/approval/tree?scope=sales&id={top}").text
    assert "55 entities on this level" in page1 and "page 1 of 2" in page1
    assert page1.count("<tr id=") == 50
    assert "Team 00" in page1 and "Team 49" in page1 and "Team 50" not in page1
    assert re.search(r"Team 00</a>.*?<td>department</td>.*?unconfirmed.*?>1 ›</a>", page1, re.S)
    page2 = approver.client.get(f"/approval/tree?scope=sales&id={top}&page=2").text
    assert page2.count("<tr id=") == 5 and "Team 54" in page2


def test_the_entity_page_shows_its_history_as_a_diff_with_the_reviews(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    sales = agent_writes.create("Vertrieb")
    buying = agent_writes.create("Einkauf")
    team = agent_writes.create("Team Nord", sales, aliases=["TN"], evidence=MAIL)
    approver.review(f"entity/{team}@1", "confirm")
    renamed = agent_writes.rename(team, "Team Nordost")
    approver.review(f"entity/{team}@{renamed}", "confirm")
    version = agent_writes.move(team, buying, reason="Einkauf übernimmt das Team")
    approver.review(f"entity/{team}@{version}", "revert", reason="bleibt im Vertrieb")

    html = approver.client.get(f"/approval/entities/{team}").text
    assert current(runtime, team)["parent_id"] == sales
    crumbs = html[html.index('class="crumbs"') : html.index("</ol>")]
    assert f'href="/approval/entities/{sales}">Vertrieb</a>' in crumbs and "Team Nordost" in crumbs
    assert "<q>TN</q>" in html
    history = html[html.index('id="history"') : html.index('id="links"')]
    assert history.index('id="v5"') < history.index('id="v1"')  # newest first
    assert "name: <del>Team Nord</del> → <ins>Team Nordost</ins>" in history
    assert "alias added: <ins>TN</ins>" in history
    assert re.search(r"parent: <del>.*?Vertrieb.*?</del> → <ins>.*?Einkauf.*?</ins>", history, re.S)
    assert "reason: Einkauf übernimmt das Team" in history
    assert "<b>confirmed</b> by person:ruth" in history
    assert "<b>reverted</b> by person:ruth" in history and "— bleibt im Vertrieb" in history
    assert 'href="#v5">version 5</a>' in history
    assert "by <b>grant:agent</b> via mcp" in history
    assert f'href="/approval/source?scope=sales&amp;id={quote(MAIL, safe="")}"' in history


def test_the_entity_page_groups_everything_about_it_and_draws_its_neighbourhood(
    agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _mail(call)
    parent = agent_writes.create("Vertrieb")
    north = agent_writes.create("Vertrieb Nord", parent)
    child = agent_writes.create("Kunde Meier", north, type="customer")
    rule = _rule(call, "Ab März wird nur frei Haus geliefert.")
    confirmed = agent_writes.link(f"rule/{rule}", f"entity/{north}", "concerns")
    approver.review(f"link/{confirmed}", "confirm")
    agent_writes.link(f"source/{MAIL}", f"entity/{north}", "mentions")

    html = approver.client.get(f"/approval/entities/{north}").text
    groups = html[html.index('id="links"') :]
    assert f'href="/approval/rules/{rule}">Ab März wird nur frei Haus geliefert.</a>' in groups
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'role="group"' in svg and "The neighbourhood of Vertrieb Nord" in svg
    assert "parent (1)" in svg and "children (1)" in svg and "rules (1)" in svg
    assert "sources (1)" in svg
    assert f'href="/approval/entities/{parent}"' in svg
    assert f'href="/approval/entities/{child}"' in svg
    # the confirmed concerns link is drawn solid, the proposed mentions link dashed
    assert re.search(r'<g class="node node-rule">\s*<title>concerns: Ab März', svg)
    assert re.search(r'<g class="node node-source proposed">\s*<title>mentions: Lieferb', svg)
    assert svg.count('class="edge proposed"') == 2  # the mention, and the unconfirmed child


def test_five_hundred_links_draw_as_capped_groups(
    agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _mail(call)
    hub = agent_writes.create("Zentrale")
    for n in range(500):
        rule = call(
            "core.propose_rule",
            scope="sales",
            statement=f"Regel Nummer {n}",
            evidence={"quote": "frei Haus", "refs": [f"source/{MAIL}"]},
        )
        link = agent_writes.link(f"rule/{rule['id']}", f"entity/{hub}", "concerns")
        approver.review(f"link/{link}", "confirm")
    html = approver.client.get(f"/approval/entities/{hub}").text
    svg = html[html.index("<svg") : html.index("</svg>") + 6]
    assert "rules (500)" in svg and "+492 more" in svg
    assert svg.count("<rect") == 8 + 1 + 1  # eight rules, "+492 more", the entity itself
    assert "8 of 500 neighbours drawn" in svg
    assert len(svg.encode()) < 20_000
    assert "page 1 of 10" in html  # the full list is paged, 50 a page


def test_search_shows_bundles_with_their_evidence_and_entities(
    agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _mail(call)
    north = agent_writes.create("Vertrieb Nord")
    rule = _rule(call, "Ab März wird nur frei Haus geliefert.")
    link = agent_writes.link(f"rule/{rule}", f"entity/{north}", "concerns")
    approver.review(f"link/{link}", "confirm")

    adopted_only = approver.client.get("/approval/search?scope=sales&q=frei+Haus").text
    assert "No rule in sales matches <q>frei Haus</q>." in adopted_only
    html = approver.client.get("/approval/search?scope=sales&q=frei+Haus&proposed=true").text
    assert f'<a href="/approval/rules/{rule}">{rule}</a>' in html
    assert "Ab März wird nur frei Haus geliefert." in html and "status-proposed" in html
    assert f'href="/approval/source?scope=sales&amp;id={quote(MAIL, safe="")}"' in html
    assert f'href="/approval/entities/{north}">Vertrieb Nord</a>' in html
    empty = approver.client.get("/approval/search?scope=sales").text
    assert "Search the rules of sales by their words" in empty


def test_activity_is_filtered_by_actor_and_operation_and_paged(
    agent_writes: AgentWrites, approver: Approver
) -> None:
    made = [agent_writes.create(f"Team {n}") for n in range(60)]
    approver.review(f"entity/{made[0]}@1", "confirm")

    everything = approver.client.get("/approval/activity?scope=sales").text
    assert "61 entries" in everything and "page 1 of 2" in everything
    assert '<option value="person:ruth">person:ruth</option>' in everything
    mine = approver.client.get("/approval/activity?scope=sales&actor=person:ruth").text
    assert "1 entry" in mine and "review_structure" in mine and "create_entity</td>" not in mine
    creates = approver.client.get(
        "/approval/activity?scope=sales&operation=create_entity&page=2"
    ).text
    assert "60 entries" in creates and "page 2 of 2" in creates
    assert creates.count("<td>create_entity</td>") == 10
    assert "operation=create_entity&page=1" in creates
    reads = approver.client.get("/approval/activity?scope=sales&reads=true").text
    assert "<td>approval_activity</td>" in reads


def test_batch_confirm_makes_one_review_per_ticked_item(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver
) -> None:
    a = agent_writes.create("Team A")
    b = agent_writes.create("Team B")
    c = agent_writes.create("Team C")
    link = agent_writes.link(f"entity/{a}", f"entity/{b}", "same_as")
    page = approver.client.get("/approval/structure?scope=sales").text
    assert 'form="batch"' in page and 'action="/approval/confirm"' in page
    stale = agent_writes.rename(c, "Team C2") - 1  # the person saw the version before

    response = approver.client.post(
        "/approval/confirm",
        data={
            "csrf": approver.csrf,
            "back": "/approval/structure?scope=sales",
            "target": [f"entity/{a}@1", f"entity/{b}@1", f"link/{link}", f"entity/{c}@{stale}"],
        },
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/approval/structure?scope=sales"
    flash = approver.client.get("/approval/structure?scope=sales").text
    assert "3 of 4 confirmed. Not confirmed:" in flash
    with runtime.home.scope_db("sales").read() as conn:
        reviews = [r[0] for r in conn.execute("SELECT target FROM review ORDER BY seq")]
    assert reviews == [f"entity/{a}@1", f"entity/{b}@1", f"link/{link}"]
    assert current(runtime, a)["status"] == "active"

    forged = approver.client.post(
        "/approval/confirm", data={"csrf": "forged", "target": [f"entity/{c}@2"]}
    )
    assert forged.status_code == 403 and "Nothing was changed" in forged.text


def test_rule_page_shows_predecessors_successors_and_contradicting_rules(
    agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    _mail(call)

    def adopted(statement: str, **more: object) -> str:
        rule = _rule(call, statement, **more)
        approver.form("decision.rule_decide", scope="sales", id=rule, verdict="adopt")
        return rule

    old = adopted("Lieferung ab 300 Euro frei Haus.")
    middle = adopted("Lieferung ab 400 Euro frei Haus.", supersedes=old)
    new = adopted("Lieferung ab 500 Euro frei Haus.", supersedes=middle)
    other = _rule(call, "Lieferung immer ab Werk.")
    agent_writes.link(f"rule/{other}", f"rule/{middle}", "contradicts")

    html = approver.client.get(f"/approval/rules/{middle}").text
    lineage = html[html.index('id="lineage"') : html.index('id="contradicting"')]
    assert lineage.index(old) < lineage.index("<dt>replaced by</dt>") < lineage.index(new)
    contradicting = html[html.index('id="contradicting"') : html.index('id="sources"')]
    assert f'href="/approval/rules/{other}"' in contradicting and "proposed" in contradicting
    newest = approver.client.get(f"/approval/rules/{new}").text
    chain = newest[newest.index('id="lineage"') : newest.index('id="contradicting"')]
    assert chain.index(middle) < chain.index(old)


def test_source_page_shows_its_thread(approver: Approver, call: Call) -> None:
    _mail(call)
    _mail(
        call,
        "mail:<m2@example.org>",
        subject="Re: Lieferbedingungen",
        in_reply_to="<m1@example.org>",
    )
    _mail(
        call,
        "mail:<m3@example.org>",
        subject="Re: Re: Lieferbedingungen",
        in_reply_to="<m2@example.org>",
    )
    html = approver.client.get(
        f"/approval/source?scope=sales&id={quote('mail:<m2@example.org>', safe='')}"
    ).text
    thread = html[html.index('id="thread"') : html.index('id="attachments"')]
    assert "3 stored mails" in thread
    assert thread.index("Lieferbedingungen ab März") < thread.index("Re: Re:")
    assert '<b aria-current="page">Re: Lieferbedingungen</b>' in thread
    assert 'class="depth-2"' in thread


def test_a_foreign_entity_reads_like_a_missing_one(
    runtime: Runtime, agent_writes: AgentWrites, approver: Approver, call: Call
) -> None:
    runtime.home.create_scope("buying")
    buyer, _ = make_principal(runtime, "buyer", {"buying": Right.PROPOSE}, ["mcp"])
    foreign_id = AgentWrites(runtime, buyer, "buying").create("Geheim")
    agent_writes.create("Vertrieb")
    never = "sales-e9999"

    foreign = approver.client.get(f"/approval/tree?scope=sales&id={foreign_id}")
    missing = approver.client.get(f"/approval/tree?scope=sales&id={never}")
    assert foreign.status_code == missing.status_code == 404
    assert "Geheim" not in foreign.text
    assert foreign.text.replace(foreign_id, "X") == missing.text.replace(never, "X")
    assert approver.client.get(f"/approval/entities/{never}").status_code == 404
    unknown = approver.client.get(f"/approval/entities/{never.replace('sales-', 'nosuch-')}")
    assert unknown.status_code == 403 and "This scope is not available" in unknown.text


def test_a_person_without_a_right_on_a_scope_sees_none_of_it(
    runtime: Runtime, agent_writes: AgentWrites
) -> None:
    """The pages' capabilities admit only scopes the person may read, as every call does."""
    runtime.home.create_scope("buying")
    buyer = make_principal(runtime, "buyer", {"buying": Right.PROPOSE}, ["mcp"])[0]
    secret = AgentWrites(runtime, buyer, "buying").create("Geheim")
    mine = agent_writes.create("Vertrieb")
    person = Principal(
        id="person:sam", org="local", channels=frozenset({"approval"}), rights={"sales": Right.READ}
    )
    registry = approval_registry()

    def page(name: str, **raw: object) -> int:
        return refusal(name, **raw)[0]

    def refusal(name: str, **raw: object) -> tuple[int, str]:
        try:
            runtime.invoke(registry.get(name), raw, principal=person, channel="approval")
        except GroundnoteError as exc:
            return exc.status, exc.message
        return 200, ""

    calls = [
        ("structure.scope", {"scope": "SCOPE"}),
        ("structure.tree", {"scope": "SCOPE"}),
        ("structure.entity", {"id": "ENTITY"}),
        ("structure.activity", {"scope": "SCOPE"}),
        ("structure.search", {"scope": "SCOPE", "q": "Geheim"}),
    ]
    for name, raw in calls:
        own = {k: str(v).replace("SCOPE", "sales").replace("ENTITY", mine) for k, v in raw.items()}
        other = {
            k: str(v).replace("SCOPE", "buying").replace("ENTITY", secret) for k, v in raw.items()
        }
        assert page(name, **own) == 200, name
        assert page(name, **other) == 403, name
    # A scope the person may not read and one that does not exist: the same refusal.
    hidden = refusal("structure.scope", scope="buying")
    absent = refusal("structure.scope", scope="nosuch")
    assert hidden[0] == absent[0] == 403
    assert hidden[1].replace("buying", "X") == absent[1].replace("nosuch", "X")
