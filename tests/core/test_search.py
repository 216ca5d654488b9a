"""search: heads in force on as_of, bundles with groups in fixed order, the log, feedback."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from groundnote.auth import Principal
from groundnote.core import Entry, GroupProvider
from groundnote.core.bundles import BundleContext
from groundnote.core.fts import expand_prefixes, match_all
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime, build_registry, compose_search
from groundnote.store.dialect import POSTGRESQL, SQLITE, Term, TextQuery
from tests.conftest import Call
from tests.core.conftest import Decide, mail, meeting, propose, rows

M1, M2, M3 = (f"source/mail:<m{n}@example.org>" for n in (1, 2, 3))
ATT = "attachment/mail:<m2@example.org>#1"


@pytest.fixture
def thread(call: Call, decide: Decide) -> str:
    """A thread m1 ← m2 (with a price list) ← m3, and an adopted rule citing m2 and its attachment."""
    call("core.store_source", scope="sales", source=mail(1, sent_at="2026-09-01T08:00:00.000Z"))
    call(
        "core.store_source",
        scope="sales",
        source=mail(
            2,
            in_reply_to="<m1@example.org>",
            sent_at="2026-09-02T08:00:00.000Z",
            attachments=[
                {
                    "filename": "preise.txt",
                    "media_type": "text/plain",
                    "text": "Preisliste: Nord 3 %",
                }
            ],
        ),
    )
    call(
        "core.store_source",
        scope="sales",
        source=mail(3, in_reply_to="<m2@example.org>", sent_at="2026-09-03T08:00:00.000Z"),
    )
    call(
        "core.store_source",
        scope="sales",
        source=meeting("unrelated", transcript="Kantine ab Montag zu."),
    )
    rule = propose(
        call,
        "Kunden im Gebiet Nord erhalten drei Prozent Rabatt.",
        [M2, ATT],
        valid_from="2026-11-01",
    )
    decide(rule["id"], "adopt")
    return str(rule["id"])


def test_a_search_returns_the_bundle_with_its_groups_in_order(call: Call, thread: str) -> None:
    out = call("core.search", scope="sales", query="Rabatt Nord", compact=False)
    [bundle] = out["bundles"]
    head = bundle["head"]
    assert head["id"] == thread and head["status"] == "adopted" and head["proposed"] is False
    assert head["source"] == M2 and head["date"] == "2026-11-01"
    assert head["still_valid"].startswith("Valid since 2026-11-01")
    assert [g["kind"] for g in bundle["groups"]] == ["source", "thread", "attachment"]
    source, thread_group, attachment = bundle["groups"]
    assert [e["ref"] for e in source["entries"]] == [M2]
    assert [e["ref"] for e in thread_group["entries"]] == [M1, M3]
    assert [e["ref"] for e in attachment["entries"]] == [ATT]
    assert attachment["entries"][0]["title"] == "preise.txt"
    assert all(
        e["origin"] == "deterministic" and not e["proposed"]
        for g in bundle["groups"]
        for e in g["entries"]
    )
    assert bundle["line"] == (
        "sales-0001 (adopted, from 2026-11-01): Kunden im Gebiet Nord erhalten drei Prozent Rabatt. "
        "— 1 source; 2 mails in thread; 1 attachment"
    )


def test_source_text_finds_the_rule_that_cites_it(call: Call, thread: str) -> None:
    # "Preisliste" occurs only in the text of the attachment the rule cites.
    out = call("core.search", scope="sales", query="preisliste", compact=False)
    assert [b["head"]["id"] for b in out["bundles"]] == [thread]


def test_umlauts_and_their_spelled_out_form_find_each_other(call: Call, decide: Decide) -> None:
    call("core.store_source", scope="sales", source=meeting("m1"))
    rule = propose(
        call, "Lieferungen nach Österreich nur per Spedition Huber.", ["source/jamie:m1"]
    )
    decide(rule["id"], "adopt")
    for query in ("Oesterreich", "österreich", "OSTERREICH spedition"):
        hits = call("core.search", scope="sales", query=query)["bundles"]
        assert [b["head"]["id"] for b in hits] == [rule["id"]], query


def test_every_search_is_logged_with_terms_refs_and_stages(
    call: Call, thread: str, runtime: Runtime
) -> None:
    out = call("core.search", scope="sales", query="Rabatt Nord")
    [(op, refs, terms, stages)] = rows(
        runtime,
        "SELECT operation, refs, terms, stages FROM search_log WHERE id = ?",
        out["search_id"],
    )
    assert op == "search"
    assert json.loads(terms) == ["rabatt", "nord"]
    assert json.loads(refs) == [f"rule/{thread}", M2, M1, M3, ATT]
    assert json.loads(stages)["heads"] == 1


def test_a_superseding_rule_is_the_successor_and_as_of_chooses_the_head(
    call: Call, decide: Decide, thread: str
) -> None:
    new = propose(
        call,
        "Kunden im Gebiet Nord erhalten vier Prozent Rabatt.",
        [M3],
        supersedes=thread,
        valid_from="2027-01-01",
    )
    hidden = call(
        "core.search", scope="sales", query="Rabatt Nord", include_proposed=False, compact=False
    )
    assert [g["kind"] for g in hidden["bundles"][0]["groups"]] == ["source", "thread", "attachment"]
    shown = call(
        "core.search", scope="sales", query="Rabatt Nord", include_proposed=True, compact=False
    )
    successor = shown["bundles"][0]["groups"][-1]
    assert successor["kind"] == "successor" and successor["entries"][0]["proposed"] is True
    assert shown["bundles"][0]["line"].endswith("superseded by sales-0002; (of which 1 proposed)")
    decide(new["id"], "adopt")
    before = call(
        "core.search", scope="sales", query="Rabatt Nord", as_of="2026-12-15", compact=False
    )
    [bundle] = before["bundles"]
    assert bundle["head"]["id"] == thread and bundle["head"]["status"] == "superseded"
    assert bundle["groups"][-1]["kind"] == "successor"
    assert bundle["groups"][-1]["entries"][0]["ref"] == "rule/sales-0002"
    after = call(
        "core.search", scope="sales", query="Rabatt Nord", as_of="2027-01-02", compact=False
    )
    [later] = after["bundles"]
    assert later["head"]["id"] == "sales-0002"
    assert [g["kind"] for g in later["groups"]][-1] == "predecessor"
    assert later["line"].endswith("supersedes sales-0001")


def test_as_of_before_valid_from_hides_the_rule(call: Call, thread: str) -> None:
    assert call("core.search", scope="sales", query="Rabatt", as_of="2026-10-31")["bundles"] == []
    assert (
        len(call("core.search", scope="sales", query="Rabatt", as_of="2026-11-01")["bundles"]) == 1
    )


def test_proposed_rules_only_on_request_and_always_marked(call: Call) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    propose(call, "Skonto zwei Prozent bei Zahlung in zehn Tagen.", [M1])
    assert call("core.search", scope="sales", query="Skonto")["bundles"] == []
    [bundle] = call("core.search", scope="sales", query="Skonto", include_proposed=True)["bundles"]
    assert bundle["head"]["proposed"] is True and bundle["head"]["status"] == "proposed"
    assert bundle["head"]["approval_url"].endswith("/approval/rules/sales-0001")
    assert "(proposed," in bundle["line"]


def test_the_mcp_form_is_compact_and_names_each_thing_once(
    call: Call, decide: Decide, thread: str
) -> None:
    second = propose(call, "Rabatt Nord gilt auch für Neukunden.", [M2])
    decide(second["id"], "adopt")
    out = call("core.search", scope="sales", query="Rabatt Nord")
    assert out["form"] == "compact"
    assert len(out["bundles"]) == 2
    assert all("entities" not in b["head"] for b in out["bundles"])
    assert out["bundles"][0]["groups"][0] == {
        "kind": "source",
        "refs": [M2],
        "proposed": [],
        "via": {},
    }
    assert set(out["related"]) == {M1, M2, M3, ATT}
    assert out["related"][ATT]["title"] == "preise.txt"
    full = call("core.search", scope="sales", query="Rabatt Nord", channel="api")
    assert full["form"] == "full" and full["related"] == {}


def test_ranking_prefers_the_better_match_then_the_newer_rule(call: Call, decide: Decide) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    for statement, day in (
        ("Frachtkosten trägt der Kunde.", "2026-01-01"),
        ("Frachtkosten trägt der Kunde.", "2026-06-01"),
        ("Frachtkosten Frachtkosten Frachtkosten Regel.", "2026-02-01"),
    ):
        decide(propose(call, statement, [M1], valid_from=day)["id"], "adopt")
    out = call("core.search", scope="sales", query="Frachtkosten")
    assert [b["head"]["id"] for b in out["bundles"]] == ["sales-0003", "sales-0002", "sales-0001"]


def test_equal_matches_on_one_day_come_in_the_order_they_were_proposed(
    call: Call, decide: Decide
) -> None:
    # The contract on every backend: score, then the newer rule in force, then the older id.
    call("core.store_source", scope="sales", source=mail(1))
    for _ in range(3):
        decide(propose(call, "Verpackung zahlt der Kunde.", [M1])["id"], "adopt")
    out = call("core.search", scope="sales", query="Verpackung")
    assert [b["head"]["id"] for b in out["bundles"]] == ["sales-0001", "sales-0002", "sales-0003"]


def test_a_query_without_words_is_refused(call: Call, scope: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("core.search", scope="sales", query="?! --")
    assert exc.value.body()["error"] == "validation-failed"
    with pytest.raises(GroundnoteError):
        call("core.search", query="Rabatt")  # neither scope nor scopes


def test_feedback_on_a_returned_ref(call: Call, thread: str, runtime: Runtime) -> None:
    out = call("core.search", scope="sales", query="Rabatt Nord")
    given = call(
        "core.feedback", scope="sales", search_id=out["search_id"], ref=M1, verdict="useful"
    )
    assert given["verdict"] == "useful"
    wrong = call(
        "core.feedback",
        scope="sales",
        search_id=out["search_id"],
        ref=f"rule/{thread}",
        verdict="wrong",
    )
    assert wrong["next"][0]["tool"] == "propose_rule"
    assert rows(runtime, "SELECT ref, verdict, given_by FROM feedback ORDER BY id") == [
        (M1, "useful", "grant:agent"),
        (f"rule/{thread}", "wrong", "grant:agent"),
    ]


def test_feedback_refuses_a_ref_the_search_did_not_return(
    call: Call, thread: str, runtime: Runtime
) -> None:
    out = call("core.search", scope="sales", query="Rabatt Nord")
    with pytest.raises(GroundnoteError) as exc:
        call(
            "core.feedback",
            scope="sales",
            search_id=out["search_id"],
            ref="source/jamie:unrelated",
            verdict="useful",
        )
    assert exc.value.body()["error"] == "validation-failed"
    with pytest.raises(GroundnoteError) as unknown:
        call("core.feedback", scope="sales", search_id="s-nope", ref=M1, verdict="useful")
    assert unknown.value.body()["error"] == "reference-unknown"
    assert rows(runtime, "SELECT count(*) FROM feedback") == [(0,)]


def test_a_cross_scope_search_is_logged_in_each_scope(
    call: Call, thread: str, runtime: Runtime
) -> None:
    from groundnote.auth import Right
    from tests.conftest import make_principal

    runtime.home.create_scope("other")
    principal, _ = make_principal(
        runtime, "both", {"sales": Right.READ, "other": Right.READ}, ["mcp"]
    )
    out = runtime.invoke(
        runtime.registry.get("core.search"),
        {"scopes": ["sales", "other"], "query": "Rabatt"},
        principal=principal,
        channel="mcp",
    ).model_dump(mode="json")
    assert [b["head"]["scope"] for b in out["bundles"]] == ["sales"]
    with runtime.home.scope_db("other").read() as conn:
        [row] = conn.execute(
            "SELECT cross_scope, refs FROM search_log WHERE id = ?", (out["search_id"],)
        )
    assert tuple(row) == (1, "[]")


def test_a_group_provider_can_be_added_in_its_fixed_place(
    runtime: Runtime, agent: Principal, thread: str
) -> None:
    class Contradicts:
        kind = "contradicts"

        def entries(self, ctx: BundleContext) -> list[Entry]:
            return [
                Entry(
                    kind="rule",
                    ref="rule/sales-0099",
                    title="Gegenteil",
                    date=None,
                    excerpt=None,
                    origin="proposed",
                    proposed=True,
                )
            ]

        def line_part(self, entries: list[Entry]) -> str:
            return f"{len(entries)} contradicting rule(s)"

    provider: GroupProvider = Contradicts()  # type: ignore[assignment]
    standard = compose_search()
    # A later provider of a kind replaces the graph's, in a registry of its own: the runtime's
    # search is untouched, because the composition is a value and not module state.
    swapped = build_registry(replace(standard, providers=(*standard.providers, provider)))
    raw = {"scope": "sales", "query": "Rabatt Nord", "compact": False}
    found = swapped.invoke(
        runtime.home,
        runtime.config,
        swapped.get("core.search"),
        raw,
        principal=agent,
        channel="mcp",
    )
    out = found.model_dump(mode="json")
    plain = runtime.invoke(runtime.registry.get("core.search"), raw, principal=agent, channel="mcp")
    assert "contradicts" not in [g["kind"] for g in plain.model_dump()["bundles"][0]["groups"]]
    [bundle] = out["bundles"]
    assert [g["kind"] for g in bundle["groups"]] == [
        "source",
        "thread",
        "attachment",
        "contradicts",
    ]
    assert bundle["line"].endswith("1 attachment; 1 contradicting rule(s); (of which 1 proposed)")


def test_a_word_finds_its_compounds_through_the_word_list(
    call: Call, decide: Decide, runtime: Runtime
) -> None:
    call("core.store_source", scope="sales", source=meeting("k1", transcript="Kantine."))
    rule = propose(call, "Die Rabattstaffel Süd gilt ab Januar.", ["source/jamie:k1"])
    decide(rule["id"], "adopt")
    with runtime.home.scope_db("sales").read() as conn:
        words = expand_prefixes(conn, ["rabatt", "sued"])
    assert words == {"rabatt": ["rabatt", "rabattstaffel"], "sued": ["sued"]}
    query = match_all(["rabatt", "sued"], words)
    assert query == TextQuery((Term(("rabatt", "rabattstaffel")), Term(("sued",))), every=True)
    assert SQLITE.text_query(query) == '("rabatt" OR "rabattstaffel") AND "sued"'
    assert POSTGRESQL.text_query(query) == "('rabatt' | 'rabattstaffel') & 'sued'"
    hits = call("core.search", scope="sales", query="Rabatt Süd")["bundles"]
    assert [b["head"]["id"] for b in hits] == [rule["id"]]


def test_a_prefix_with_too_many_words_stays_a_prefix(
    call: Call, decide: Decide, runtime: Runtime
) -> None:
    call("core.store_source", scope="sales", source=meeting("k1", transcript="Kantine."))
    many = " ".join(f"zins{a}{b}" for a in "abcdef" for b in "abcdef")
    rule = propose(call, f"Zinsen: {many}.", ["source/jamie:k1"])
    decide(rule["id"], "adopt")
    with runtime.home.scope_db("sales").read() as conn:
        words = expand_prefixes(conn, ["zins"])
    assert words == {} and match_all(["zins"], words) == TextQuery((Term(("zins",), prefix=True),))
    assert SQLITE.text_query(match_all(["zins"])) == '"zins"*'
    assert POSTGRESQL.text_query(match_all(["zins"])) == "'zins':*"
    hits = call("core.search", scope="sales", query="zins")["bundles"]
    assert [b["head"]["id"] for b in hits] == [rule["id"]]


def test_sources_are_read_only_when_direct_hits_do_not_fill_the_page(
    call: Call, thread: str, runtime: Runtime
) -> None:
    def stage1(search_id: str) -> dict[str, object]:
        [(stages,)] = rows(runtime, "SELECT stages FROM search_log WHERE id = ?", search_id)
        return dict(json.loads(stages)["stage1"])

    filled = call("core.search", scope="sales", query="Rabatt Nord", limit=1)
    assert stage1(filled["search_id"]) == {"rule_hits": 1, "source_hits": None, "capped": False}
    via = call("core.search", scope="sales", query="preisliste")
    assert [b["head"]["id"] for b in via["bundles"]] == [thread]
    assert stage1(via["search_id"]) == {"rule_hits": 0, "source_hits": 1, "capped": False}


def test_without_an_entity_graph_the_entity_filter_is_refused(
    runtime: Runtime, agent: Principal, thread: str
) -> None:
    core_only = build_registry(replace(compose_search(), entity_filter=None))
    raw = {"scope": "sales", "query": "Rabatt", "entity": "sales-e0001"}
    with pytest.raises(GroundnoteError) as exc:
        core_only.invoke(
            runtime.home,
            runtime.config,
            core_only.get("core.search"),
            raw,
            principal=agent,
            channel="mcp",
        )
    assert exc.value.body()["error"] == "validation-failed"
    assert exc.value.body()["remedy"] == "Search without entity."
