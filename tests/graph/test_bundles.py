"""The graph in search bundles (seed 000 §11, G5, G8): the entity, contradicts and same-relation
groups, head.entities, the entity filter, the line and the compact form, through `call`.

Links are proposed by the agent over MCP and confirmed or rejected by a person on the approval
channel (structure.review), as in use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from groundnote import decision, structure
from groundnote.auth import Principal, Right
from groundnote.capabilities import Registry
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime, open_runtime
from tests.conftest import Call, make_principal
from tests.core.conftest import mail, propose

RUTH = Principal(
    id="person:ruth",
    org="local",
    channels=frozenset({"approval"}),
    rights={"*": Right.DECIDE},
    identity="ruth@example.org",
)
M1 = "source/mail:<m1@example.org>"
M2 = "source/mail:<m2@example.org>"
Person = Callable[..., dict[str, Any]]


def as_person(runtime: Runtime) -> Person:
    """Ruth on the approval channel: rule decisions and reviews of links."""
    registry = Registry([*decision.CAPABILITIES, *structure.CAPABILITIES])

    def invoke(name: str, /, **raw: Any) -> dict[str, Any]:
        out = registry.invoke(
            runtime.home,
            runtime.config,
            registry.get(name),
            raw,
            principal=RUTH,
            channel="approval",
        )
        return out.model_dump(mode="json")

    return invoke


@dataclass
class World:
    """A tree Nordlicht GmbH › Vertrieb › Gebiet Nord › Kunde Müller, a mail, and rules on it."""

    call: Call
    person: Person
    org: str
    sales: str
    north: str
    customer: str

    def rule(self, statement: str, *, adopt: bool = True, **more: Any) -> str:
        rule_id = str(propose(self.call, statement, [M1], **more)["id"])
        if adopt:
            self.person("decision.rule_decide", scope="sales", id=rule_id, verdict="adopt")
        return rule_id

    def link(
        self, from_ref: str, to_ref: str, type: str = "concerns", confidence: float = 0.8
    ) -> str:
        out = self.call(
            "graph.link_propose",
            scope="sales",
            from_ref=from_ref,
            to_ref=to_ref,
            type=type,
            confidence=confidence,
            reason="the mail says so",
        )
        return str(out["link"]["id"])

    def review(self, link_id: str, verdict: str = "confirm") -> None:
        reason = "not what the mail says" if verdict == "reject" else None
        raw: dict[str, Any] = {"target": f"link/{link_id}", "verdict": verdict}
        if reason:
            raw["reason"] = reason
        self.person("structure.review", **raw)

    def confirmed(self, from_ref: str, to_ref: str, type: str = "concerns") -> str:
        link_id = self.link(from_ref, to_ref, type)
        self.review(link_id)
        return link_id

    def search(self, query: str = "Rabatt", **more: Any) -> dict[str, Any]:
        more.setdefault("compact", False)
        return self.call("core.search", scope="sales", query=query, **more)

    def bundle(self, rule_id: str, query: str = "Rabatt", **more: Any) -> dict[str, Any]:
        found = [b for b in self.search(query, **more)["bundles"] if b["head"]["id"] == rule_id]
        assert found, f"{rule_id} is no head"
        return found[0]


def build_world(call: Call, person: Person) -> World:
    def create(type: str, name: str, parent: str | None = None) -> str:
        out = call(
            "graph.entity_create",
            scope="sales",
            type=type,
            name=name,
            parent_id=parent,
            reason="the mail names it",
            force=True,
        )
        return str(out["entity"]["id"])

    org = create("organisation", "Nordlicht GmbH")
    sales = create("department", "Vertrieb", org)
    north = create("department", "Gebiet Nord", sales)
    customer = create("customer", "Kunde Müller", north)
    call("core.store_source", scope="sales", source=mail(1))
    return World(call, person, org, sales, north, customer)


@pytest.fixture
def world(runtime: Runtime, call: Call) -> World:
    return build_world(call, as_person(runtime))


@pytest.fixture
def lenient(home_path: Path, clock: FixedClock) -> Iterator[World]:
    """A home where proposed links count from a confidence of 0.7 on."""
    rt = open_runtime(
        home_path.with_name("lenient"),
        clock=clock,
        environ={"GROUNDNOTE_GRAPH__PROPOSED_MIN_CONFIDENCE": "0.7"},
    )
    rt.home.create_scope("sales")
    agent, _ = make_principal(rt, "agent", {"sales": Right.PROPOSE}, ["mcp"])

    def invoke(name: str, /, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        out = rt.invoke(rt.registry.get(name), raw, principal=agent, channel=channel)
        return out.model_dump(mode="json")

    yield build_world(invoke, as_person(rt))
    rt.close()


def kinds(bundle: dict[str, Any]) -> list[str]:
    return [g["kind"] for g in bundle["groups"]]


def group(bundle: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    [found] = [g["entries"] for g in bundle["groups"] if g["kind"] == kind]
    return found


def test_a_confirmed_concerns_link_shows_the_entity_and_its_path(world: World) -> None:
    rule = world.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    world.confirmed(f"rule/{rule}", f"entity/{world.north}")
    bundle = world.bundle(rule)
    assert kinds(bundle) == ["source", "entity"]
    [entry] = group(bundle, "entity")
    assert entry == {
        "kind": "entity",
        "ref": f"entity/{world.north}",
        "title": "Nordlicht GmbH › Vertrieb › Gebiet Nord",
        "date": "2026-11-30",
        "excerpt": None,
        "status": None,
        "origin": "proposed",
        "proposed": False,
        "via": None,
    }
    [head_entity] = bundle["head"]["entities"]
    assert head_entity["ref"] == f"entity/{world.north}" and head_entity["proposed"] is False
    assert (head_entity["name"], head_entity["type"]) == ("Gebiet Nord", "department")
    assert [p["ref"] for p in head_entity["path"]] == [
        f"entity/{world.org}",
        f"entity/{world.sales}",
        f"entity/{world.north}",
    ]
    assert bundle["line"].endswith("— 1 source; 1 entity")


def test_a_proposed_link_counts_once_confirmed_and_never_once_rejected(world: World) -> None:
    rule = world.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    north = world.link(f"rule/{rule}", f"entity/{world.north}", confidence=0.95)
    customer = world.link(f"rule/{rule}", f"entity/{world.customer}", "mentions", 0.95)
    bundle = world.bundle(rule)
    assert kinds(bundle) == ["source"] and bundle["head"]["entities"] == []
    world.review(north)
    world.review(customer, "reject")
    bundle = world.bundle(rule)
    assert [e["ref"] for e in group(bundle, "entity")] == [f"entity/{world.north}"]
    assert "proposed" not in bundle["line"]


def test_with_a_minimum_confidence_a_proposed_link_counts_marked_proposed(
    lenient: World,
) -> None:
    rule = lenient.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    north = lenient.link(f"rule/{rule}", f"entity/{lenient.north}", confidence=0.9)
    lenient.link(f"rule/{rule}", f"entity/{lenient.customer}", "mentions", confidence=0.69)
    lenient.confirmed(f"rule/{rule}", f"entity/{lenient.sales}")  # confidence 0.8
    bundle = lenient.bundle(rule)
    entries = group(bundle, "entity")
    # not proposed first, then confidence: the confirmed link before the surer proposed one
    assert [(e["ref"], e["proposed"]) for e in entries] == [
        (f"entity/{lenient.sales}", False),
        (f"entity/{lenient.north}", True),
    ]
    assert [e["proposed"] for e in bundle["head"]["entities"]] == [False, True]
    assert bundle["line"].endswith("— 1 source; 2 entities; (of which 1 proposed)")
    lenient.review(north, "reject")
    bundle = lenient.bundle(rule)
    assert [e["ref"] for e in group(bundle, "entity")] == [f"entity/{lenient.sales}"]
    assert "proposed" not in bundle["line"]


def test_with_a_minimum_confidence_the_filter_and_same_relation_count_alike(
    lenient: World,
) -> None:
    head = lenient.rule("Kunde Müller erhält drei Prozent Rabatt.")
    sure = lenient.rule("Im Gebiet Nord gilt Rabatt nur schriftlich.")
    unsure = lenient.rule("Rabatt im Vertrieb nur mit Freigabe.")
    lenient.confirmed(f"rule/{head}", f"entity/{lenient.customer}")
    link = lenient.link(f"rule/{sure}", f"entity/{lenient.north}", confidence=0.7)
    lenient.link(f"rule/{unsure}", f"entity/{lenient.sales}", confidence=0.69)
    filtered = lenient.search(entity=lenient.customer)["bundles"]
    assert {b["head"]["id"] for b in filtered} == {head, sure}
    [related] = group(lenient.bundle(head), "same-relation")
    assert (related["ref"], related["proposed"]) == (f"rule/{sure}", True)
    lenient.review(link, "reject")
    assert [b["head"]["id"] for b in lenient.search(entity=lenient.customer)["bundles"]] == [head]
    assert "same-relation" not in kinds(lenient.bundle(head))


def test_contradicting_rules_in_either_direction_that_pass_the_head_filter(
    world: World,
) -> None:
    head = world.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    against = world.rule("Im Gebiet Nord gibt es keinen Rabatt.")
    towards = world.rule("Rabatt im Norden höchstens zwei Prozent.")
    waiting = world.rule("Rabatt Nord fällt weg.", adopt=False)
    world.confirmed(f"rule/{against}", f"rule/{head}", "contradicts")
    world.confirmed(f"rule/{head}", f"rule/{towards}", "contradicts")
    world.confirmed(f"rule/{waiting}", f"rule/{head}", "contradicts")
    bundle = world.bundle(head)
    entries = group(bundle, "contradicts")
    assert {e["ref"] for e in entries} == {f"rule/{against}", f"rule/{towards}"}
    assert all(e["kind"] == "rule" and e["status"] == "adopted" for e in entries)
    assert bundle["line"].endswith("1 source; 2 contradicting rules")
    assert [e["ref"] for e in group(world.bundle(against), "contradicts")] == [f"rule/{head}"]
    shown = group(world.bundle(head, include_proposed=True), "contradicts")
    [proposed] = [e for e in shown if e["ref"] == f"rule/{waiting}"]
    assert proposed["proposed"] is True and proposed["status"] == "proposed"


def test_same_relation_holds_rules_about_the_entity_or_one_above_it(world: World) -> None:
    head = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    above = world.rule("Im Vertrieb gilt Rabatt nur schriftlich.")
    beside = world.rule("Rabatt für Kunden außerhalb der Gebiete nur nach Rücksprache.")
    world.confirmed(f"rule/{head}", f"entity/{world.customer}")
    world.confirmed(f"rule/{above}", f"entity/{world.sales}", "mentions")
    other = world.call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Einkauf",
        parent_id=world.org,
        reason="the mail names it",
    )["entity"]["id"]
    world.confirmed(f"rule/{beside}", f"entity/{other}")
    bundle = world.bundle(head)
    [entry] = group(bundle, "same-relation")
    assert (entry["ref"], entry["kind"], entry["origin"]) == (f"rule/{above}", "rule", "proposed")
    assert kinds(bundle) == ["source", "entity", "same-relation"]
    assert bundle["line"].endswith("— 1 source; 1 entity")  # same-relation adds no part
    # the other way round: a rule about a descendant is no relation of the rule above it
    assert "same-relation" not in kinds(world.bundle(above))


def test_the_entity_filter_takes_rules_of_the_entity_and_those_above_it(world: World) -> None:
    own = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    above = world.rule("Im Vertrieb gilt Rabatt nur schriftlich.")
    elsewhere = world.rule("Rabatt auf Messen zwei Prozent.")
    uncounted = world.rule("Rabatt für Müller nur bis Jahresende.")
    world.confirmed(f"rule/{own}", f"entity/{world.customer}")
    world.confirmed(f"rule/{above}", f"entity/{world.sales}")
    world.link(f"rule/{uncounted}", f"entity/{world.customer}")  # proposed, not confirmed
    everything = {b["head"]["id"] for b in world.search()["bundles"]}
    assert everything == {own, above, elsewhere, uncounted}
    filtered = world.search(entity=world.customer)["bundles"]
    assert {b["head"]["id"] for b in filtered} == {own, above}
    by_sales = world.search(entity=world.sales)["bundles"]
    assert [b["head"]["id"] for b in by_sales] == [above]
    assert world.search(entity=world.north, as_of="2026-10-01")["bundles"] == []


def test_the_entity_filter_refuses_two_scopes_and_unknown_or_foreign_entities(
    runtime: Runtime, world: World
) -> None:
    runtime.home.create_scope("other")
    both, _ = make_principal(runtime, "both", {"sales": Right.READ, "other": Right.READ}, ["mcp"])
    with pytest.raises(GroundnoteError) as two:
        runtime.invoke(
            runtime.registry.get("core.search"),
            {"scopes": ["sales", "other"], "query": "Rabatt", "entity": world.north},
            principal=both,
            channel="mcp",
        )
    assert (two.value.status, two.value.body()["error"]) == (400, "validation-failed")
    with pytest.raises(GroundnoteError) as unknown:
        world.search(entity="sales-e0099")
    assert unknown.value.body()["error"] == "reference-unknown"
    assert unknown.value.body()["next"][0]["tool"] == "entity_resolve"
    with pytest.raises(GroundnoteError) as foreign:
        world.search(entity="other-e0001")
    assert foreign.value.body()["error"] == "scope-mismatch"


def test_the_line_places_entities_after_attachments_and_contradictions_after_successors(
    world: World, clock: FixedClock
) -> None:
    head = world.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    against = world.rule("Im Gebiet Nord gibt es keinen Rabatt.")
    newer = world.rule(
        "Kunden im Gebiet Nord erhalten vier Prozent Rabatt.",
        supersedes=head,
        valid_from="2027-01-01",
    )
    world.confirmed(f"rule/{head}", f"entity/{world.north}")
    world.confirmed(f"rule/{head}", f"entity/{world.customer}", "mentions")
    world.confirmed(f"rule/{against}", f"rule/{head}", "contradicts")
    bundle = world.bundle(head, query="drei Prozent")
    assert kinds(bundle) == ["source", "entity", "successor", "contradicts"]
    assert bundle["line"].endswith(
        f"— 1 source; 2 entities; superseded by {newer}; 1 contradicting rule"
    )
    # a link begun after as_of is not open on that day
    clock.moment = datetime(2026, 12, 5, 9, 0, tzinfo=clock.moment.tzinfo)
    world.confirmed(f"rule/{head}", f"entity/{world.sales}", "mentions")
    before = world.bundle(head, query="drei Prozent", as_of="2026-12-01")
    assert len(group(before, "entity")) == 2
    assert len(group(world.bundle(head, query="drei Prozent"), "entity")) == 3


def test_a_bundle_without_graph_data_is_unchanged(world: World) -> None:
    rule = world.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    bundle = world.bundle(rule)
    assert kinds(bundle) == ["source"] and bundle["head"]["entities"] == []
    assert bundle["line"].endswith("— 1 source")


def test_the_compact_form_names_each_entity_once_with_its_path(lenient: World) -> None:
    first = lenient.rule("Kunden im Gebiet Nord erhalten drei Prozent Rabatt.")
    second = lenient.rule("Im Gebiet Nord gilt Rabatt nur schriftlich.")
    lenient.confirmed(f"rule/{first}", f"entity/{lenient.north}")
    lenient.link(f"rule/{second}", f"entity/{lenient.north}", confidence=0.9)
    out = lenient.call("core.search", scope="sales", query="Rabatt Nord")
    assert out["form"] == "compact"
    by_id = {b["head"]["id"]: b for b in out["bundles"]}
    assert all("entities" not in b["head"] for b in out["bundles"])
    ref = f"entity/{lenient.north}"
    assert {"kind": "entity", "refs": [ref], "proposed": [], "via": {}} in by_id[first]["groups"]
    assert {"kind": "entity", "refs": [ref], "proposed": [ref], "via": {}} in by_id[second][
        "groups"
    ]
    assert out["related"][ref] == {
        "kind": "entity",
        "title": "Nordlicht GmbH › Vertrieb › Gebiet Nord",
        "date": "2026-11-30",
        "excerpt": None,
        "status": None,
    }
    assert by_id[second]["line"].endswith("(of which 1 proposed)")


# -- entities reached through the rule's sources (DESIGN §15 P8) ---------------------------


def test_an_entity_the_source_concerns_shows_marked_via_the_source(world: World) -> None:
    rule = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    link = world.link(M1, f"entity/{world.customer}")
    assert kinds(world.bundle(rule)) == ["source"]  # a proposed link does not count yet
    world.review(link)
    bundle = world.bundle(rule)
    [entry] = group(bundle, "entity")
    assert (entry["ref"], entry["via"], entry["proposed"]) == (
        f"entity/{world.customer}",
        M1,
        False,
    )
    assert entry["title"] == "Nordlicht GmbH › Vertrieb › Gebiet Nord › Kunde Müller"
    [head_entity] = bundle["head"]["entities"]
    assert (head_entity["ref"], head_entity["via"]) == (f"entity/{world.customer}", M1)
    assert bundle["line"].endswith("— 1 source; 1 entity")
    # the entity filter finds the rule through its source, for the entity and those below
    assert [b["head"]["id"] for b in world.search(entity=world.customer)["bundles"]] == [rule]
    assert world.search(entity=world.north)["bundles"] == []
    # the rule's own link makes it direct: one entry, no via
    world.confirmed(f"rule/{rule}", f"entity/{world.customer}")
    [entry] = group(world.bundle(rule), "entity")
    assert entry["via"] is None


def test_only_counted_concerns_or_belongs_to_links_of_a_source_reach_through(
    world: World,
) -> None:
    rule = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    world.confirmed(M1, f"entity/{world.sales}", "mentions")  # in passing: not about it
    world.review(world.link(M1, f"entity/{world.north}"), "reject")
    world.confirmed(M1, f"entity/{world.customer}", "belongs_to")
    bundle = world.bundle(rule)
    assert [(e["ref"], e["via"]) for e in group(bundle, "entity")] == [
        (f"entity/{world.customer}", M1)
    ]
    filtered = {b["head"]["id"] for b in world.search(entity=world.sales)["bundles"]}
    assert filtered == set()


def test_a_proposed_source_link_above_the_minimum_reaches_through_marked_proposed(
    lenient: World,
) -> None:
    rule = lenient.rule("Kunde Müller erhält drei Prozent Rabatt.")
    lenient.link(M1, f"entity/{lenient.customer}", confidence=0.9)
    bundle = lenient.bundle(rule)
    [entry] = group(bundle, "entity")
    assert (entry["via"], entry["proposed"]) == (M1, True)
    assert bundle["line"].endswith("(of which 1 proposed)")
    out = lenient.call("core.search", scope="sales", query="Rabatt")
    [compact] = [b for b in out["bundles"] if b["head"]["id"] == rule]
    ref = f"entity/{lenient.customer}"
    assert {"kind": "entity", "refs": [ref], "proposed": [ref], "via": {ref: M1}} in compact[
        "groups"
    ]


def test_same_relation_reaches_rules_through_their_sources(world: World) -> None:
    head = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    world.confirmed(f"rule/{head}", f"entity/{world.customer}")
    world.call("core.store_source", scope="sales", source=mail(2))
    other = str(propose(world.call, "Rabatt für Müller nur schriftlich.", [M2])["id"])
    world.person("decision.rule_decide", scope="sales", id=other, verdict="adopt")
    world.confirmed(M2, f"entity/{world.north}")
    [related] = group(world.bundle(head), "same-relation")
    assert (related["ref"], related["via"]) == (f"rule/{other}", M2)


def test_an_archived_entity_is_not_reached_through_a_source(world: World, runtime: Runtime) -> None:
    rule = world.rule("Kunde Müller erhält drei Prozent Rabatt.")
    world.confirmed(M1, f"entity/{world.customer}")
    with runtime.home.scope_db("sales").read() as conn:
        version = conn.execute(
            "SELECT version FROM entity_current WHERE id = ?", (world.customer,)
        ).fetchone()[0]
    world.person("structure.archive", id=world.customer, version=version, reason="gone")
    assert kinds(world.bundle(rule)) == ["source"]


def test_a_cited_attachment_filed_under_an_entity_reaches_it(world: World) -> None:
    attachment = {"filename": "preise.txt", "media_type": "text/plain", "text": "Nord 3 %"}
    world.call("core.store_source", scope="sales", source=mail(3, attachments=[attachment]))
    cited = "attachment/mail:<m3@example.org>#1"
    rule = str(propose(world.call, "Rabatt Nord laut Preisliste.", [cited])["id"])
    world.person("decision.rule_decide", scope="sales", id=rule, verdict="adopt")
    world.confirmed(cited, f"entity/{world.north}", "belongs_to")
    bundle = world.bundle(rule, query="Preisliste")
    assert [(e["ref"], e["via"]) for e in group(bundle, "entity")] == [
        (f"entity/{world.north}", cited)
    ]
    # the filter takes rules about the entity or one above it, never one below it
    found = world.search(query="Preisliste", entity=world.customer)["bundles"]
    assert [b["head"]["id"] for b in found] == [rule]
    assert world.search(query="Preisliste", entity=world.sales)["bundles"] == []


def test_a_bundle_is_the_same_on_a_page_of_many_heads_as_alone(world: World) -> None:
    """The groups of a page are read once for all its heads (BundleContext.for_page): each
    head must still get exactly its own groups. Each rule has a word of its own, so searching
    that word shows its bundle alone; "Rabatt" shows them all on one page."""
    world.call(
        "core.store_source",
        scope="sales",
        source=mail(2, in_reply_to="<m1@example.org>", subject="Re: Rabattstaffel Nord"),
    )
    words = ["Apfel", "Birne", "Kirsche", "Pflaume"]
    first, second, third, fourth = (
        str(propose(world.call, f"Rabatt {word} drei Prozent.", [M1 if i % 2 else M2])["id"])
        for i, word in enumerate(words)
    )
    for rule_id in (first, second, third, fourth):
        world.person("decision.rule_decide", scope="sales", id=rule_id, verdict="adopt")
    world.confirmed(f"rule/{first}", f"entity/{world.north}")
    world.confirmed(f"rule/{second}", f"entity/{world.customer}")
    world.confirmed(M2, f"entity/{world.sales}")
    world.confirmed(f"rule/{third}", f"rule/{first}", "contradicts")
    world.confirmed(f"rule/{fourth}", f"rule/{second}", "contradicts")
    page = {b["head"]["id"]: b for b in world.search("Rabatt", limit=10)["bundles"]}
    assert set(page) >= {first, second, third, fourth}
    for rule_id, word in zip((first, second, third, fourth), words, strict=True):
        [alone] = world.search(word)["bundles"]
        assert alone == page[rule_id]
    assert {"source", "thread", "entity", "contradicts", "same-relation"} <= {
        kind for b in page.values() for kind in kinds(b)
    }
