"""The demo company: a small fictional firm in its own scope `demo`, to try things on.

`groundnote serve --demo` loads it once. It lives in a scope of its own, so it never mixes with
real data: nothing else is written to `demo`, and search answers from a scope only when it is
named. Everything is written the way it happens in use, through the registry: the tree, the
mails, links and rules as an import over the API (`grant:demo-loader`), and the person's
decisions as the local person on the approval channel. Two things are left waiting for a
person (a proposed rule and its mail's link), so the approval page has something to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from groundnote.auth import Principal, Right, find_person, person_principal
from groundnote.domain.clock import format_instant
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry

__all__ = ["DEMO_SCOPE", "DemoReport", "load_demo"]

DEMO_SCOPE = "demo"
COMPANY = "Kessler Feinmechanik GmbH"
LOADER = Principal(
    id="grant:demo-loader",
    org="local",
    channels=frozenset({"api"}),
    rights={DEMO_SCOPE: Right.PROPOSE},
)

# (key, type, name, aliases, parent key): the organisation tree, top level first.
TREE: tuple[tuple[str, str, str, tuple[str, ...], str | None], ...] = (
    ("company", "organisation", COMPANY, ("Kessler",), None),
    ("sales", "department", "Vertrieb", ("Sales",), "company"),
    ("north", "department", "Vertrieb Nord", (), "sales"),
    ("south", "department", "Vertrieb Süd", (), "sales"),
    ("buying", "department", "Einkauf", ("Purchasing",), "company"),
    ("ines", "person", "Ines Kessler", (), "sales"),
    ("sommer", "customer", "Bäckerei Sommer", (), "north"),
    ("seeblick", "customer", "Hotel Seeblick KG", (), "north"),
    ("albrecht", "customer", "Weingut Albrecht", (), "south"),
)

SENDER = "Ines Kessler <ines@kessler.example>"
SALES = "vertrieb@kessler.example"
DISCOUNT = "mail:<discount-sommer@kessler.example>"
DISCOUNT_REPLY = "mail:<re-discount-sommer@kessler.example>"
DELIVERY = "mail:<delivery-seeblick@kessler.example>"


def _mails(days_ago: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "kind": "mail",
            "id": DISCOUNT,
            "subject": "Discount for Bäckerei Sommer",
            "sender": SENDER,
            "to": [SALES],
            "sent_at": days_ago["discount"],
            "body": (
                "Hello team,\n\nfrom now on Bäckerei Sommer gets 5 % off all spare parts. "
                "They have ordered with us for twelve years.\n\nInes"
            ),
        },
        {
            "kind": "mail",
            "id": DISCOUNT_REPLY,
            "subject": "Re: Discount for Bäckerei Sommer",
            "sender": "Jonas Berg <jonas@kessler.example>",
            "to": ["ines@kessler.example"],
            "sent_at": days_ago["reply"],
            "in_reply_to": "<discount-sommer@kessler.example>",
            "body": "Does the 5 % also cover maintenance visits?\n\n> from now on Bäckerei "
            "Sommer gets 5 % off all spare parts.\n\nNo, spare parts only. Ines",
        },
        {
            "kind": "mail",
            "id": DELIVERY,
            "subject": "Deliveries to Hotel Seeblick",
            "sender": SENDER,
            "to": [SALES],
            "sent_at": days_ago["delivery"],
            "body": (
                "Hotel Seeblick KG asked for faster deliveries during the season. We deliver "
                "their orders within 48 hours from May to September."
            ),
        },
    ]


@dataclass(frozen=True)
class DemoReport:
    loaded: bool  # False: the scope holds data already and was left alone
    # With loaded False: whether that data is the demo company (an earlier --demo) or not
    # (a scope someone named demo and filled; it is never touched).
    company: bool = True
    entities: int = 0
    sources: int = 0
    rules: int = 0
    waiting: int = 0  # items left for a person on the approval page


class _Loader:
    def __init__(self, runtime: Runtime, person: Principal) -> None:
        self.runtime = runtime
        self.person = person
        self.approval = approval_registry()

    def agent(self, capability: str, /, **raw: Any) -> dict[str, Any]:
        cap = self.runtime.registry.get(capability)
        out = self.runtime.invoke(
            cap, {"scope": DEMO_SCOPE, **raw}, principal=LOADER, channel="api"
        )
        return out.model_dump(mode="json")

    def decide(self, capability: str, /, **raw: Any) -> None:
        runtime = self.runtime
        self.approval.invoke(
            runtime.home,
            runtime.config,
            self.approval.get(capability),
            raw,
            principal=self.person,
            channel="approval",
        )

    def confirm_link(self, from_ref: str, to_ref: str, reason: str) -> None:
        link = self.link(from_ref, to_ref, reason)
        self.decide("structure.review", target=f"link/{link}", verdict="confirm")

    def link(self, from_ref: str, to_ref: str, reason: str) -> str:
        out = self.agent(
            "graph.link_propose",
            from_ref=from_ref,
            to_ref=to_ref,
            type="concerns",
            confidence=0.9,
            reason=reason,
        )
        return str(out["link"]["id"])


def _holds_data(runtime: Runtime) -> bool:
    with runtime.home.scope_db(DEMO_SCOPE).read() as conn:
        return any(
            conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None
            for table in ("entity", "source", "rule")
        )


def _holds_company(runtime: Runtime) -> bool:
    with runtime.home.scope_db(DEMO_SCOPE).read() as conn:
        found = conn.execute(
            "SELECT 1 FROM entity_current WHERE name = ? AND parent_id IS NULL", (COMPANY,)
        ).fetchone()
    return found is not None


def load_demo(runtime: Runtime, person: str) -> DemoReport:
    """Create scope `demo` with the company in it; a scope `demo` with data is left alone."""
    home = runtime.home
    if DEMO_SCOPE not in home.scope_names():
        home.create_scope(DEMO_SCOPE)
    elif _holds_data(runtime):
        return DemoReport(loaded=False, company=_holds_company(runtime))
    load = _Loader(runtime, person_principal(find_person(home.instance, person)))

    ids: dict[str, str] = {}
    for key, type_, name, aliases, parent in TREE:
        out = load.agent(
            "graph.entity_create",
            type=type_,
            name=name,
            aliases=list(aliases),
            parent_id=ids[parent] if parent else None,
            reason="the demo company's organisation chart",
        )
        ids[key] = out["entity"]["id"]
        load.decide("structure.review", target=f"entity/{ids[key]}@1", verdict="confirm")

    now = home.clock.now()
    sent = {
        key: format_instant(now - timedelta(days=days))
        for key, days in (("discount", 14), ("reply", 13), ("delivery", 6))
    }
    for mail in _mails(sent):
        load.agent("core.store_source", source=mail)

    sommer, seeblick = f"entity/{ids['sommer']}", f"entity/{ids['seeblick']}"
    load.confirm_link(f"source/{DISCOUNT}", sommer, "the mail grants Bäckerei Sommer a discount")
    discount = load.agent(
        "core.propose_rule",
        statement="Bäckerei Sommer gets 5 % off spare parts; maintenance visits are not discounted.",
        evidence={
            "quote": "from now on Bäckerei Sommer gets 5 % off all spare parts … No, spare parts only.",
            "refs": [f"source/{DISCOUNT}", f"source/{DISCOUNT_REPLY}"],
        },
    )
    load.decide("decision.rule_decide", scope=DEMO_SCOPE, id=discount["id"], verdict="adopt")
    load.confirm_link(f"rule/{discount['id']}", sommer, "the rule is about Bäckerei Sommer")

    # Left for a person: the proposed rule and the link of its mail.
    load.link(f"source/{DELIVERY}", seeblick, "the mail is about deliveries to Hotel Seeblick")
    load.agent(
        "core.propose_rule",
        statement="Orders of Hotel Seeblick KG are delivered within 48 hours from May to September.",
        evidence={
            "quote": "We deliver their orders within 48 hours from May to September.",
            "refs": [f"source/{DELIVERY}"],
        },
    )
    return DemoReport(loaded=True, entities=len(TREE), sources=3, rules=2, waiting=2)
