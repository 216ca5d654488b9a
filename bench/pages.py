"""Benchmark of the explorer and approval pages (issue 18): server time per page at scale.

    .venv/bin/python -m bench.pages                 # 100,000 entities, 100,000 rules
    .venv/bin/python -m bench.pages --n 10000       # a smaller run

The store: N mails and N rules citing them (75 % adopted, a third of the mails replies) and
bench.graph's N entities (down to level 8, one group of 10,000 under the first organisation),
both through the domain's own insert functions; 20,000 links from rules to random entities, a
hub entity with 500 links (rules, mails, entities; half of them confirmed), and 100,000 rows
of operation log. The agent's entities are all unconfirmed, the worst case for the pending
counts every page header shows.

Each page is fetched by a signed-in person through the whole ASGI app in process (FastAPI's
TestClient: session, registry, log row, Jinja rendering), --requests times after a warm-up;
the time is the server's, without a socket. The neighbourhood SVG of the hub is measured in
bytes and boxes drawn. Search runs with full text only unless --semantic on: the generated
texts have no vectors, and a store that far behind embeds a batch of them in every search.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from fastapi.testclient import TestClient

from bench.common import print_table, time_calls
from bench.graph import generate as plan_entities
from bench.graph import load as load_entities
from groundnote.auth import add_person, issue_login_link
from groundnote.core.propose import insert_rule
from groundnote.core.sources import insert_source
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError
from groundnote.graph.entities import Author
from groundnote.graph.links import propose_link
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.http import create_app

SCOPE = "bench"
LINKS = 20_000


_SUBJECTS = [
    "Lieferbedingungen {n}",
    "Rabatt für Kunde {n}",
    "Frei Haus ab {n} Euro",
    "Re: Angebot {n}",
]
_RULES = [
    "Lieferung frei Haus ab {n} Euro Warenwert.",
    "Kunde {n} erhält drei Prozent Rabatt.",
    "Rechnungen an Kunde {n} gehen per Post.",
    "Zahlungsziel für Kunde {n} ist dreißig Tage.",
]


def load_rules(rt: Runtime, n: int, rng: random.Random) -> None:
    """N mails (a third of them replies) and N rules citing them, 75 % adopted, written through
    core's own insert functions. (bench.core generates the same, but it does not import on
    this branch: it names export_lines in groundnote.core, which moved to store.transfer.)"""
    db = rt.home.scope_db(SCOPE)
    now = rt.home.clock.instant()
    for first in range(1, n + 1, 5000):
        with db.write() as conn:
            for seq in range(first, min(n, first + 4999) + 1):
                day = f"20{rng.randint(22, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                sid = f"mail:<g{seq}@bench.example>"
                reply = (
                    f"<g{rng.randint(1, seq - 1)}@bench.example>"
                    if seq > 1 and rng.random() < 0.33
                    else None
                )
                statement = rng.choice(_RULES).format(n=rng.randint(1, 5000))
                insert_source(
                    conn,
                    {
                        "seq": seq,
                        "id": sid,
                        "kind": "mail",
                        "title": rng.choice(_SUBJECTS).format(n=seq),
                        "day": day,
                        "sent_at": f"{day}T09:00:00.000Z",
                        "sender": "vertrieb@bench.example",
                        "recipients": '["kunde@bench.example"]',
                        "cc": "[]",
                        "in_reply_to": reply,
                        "refs": json.dumps([reply] if reply else []),
                        "participants": "[]",
                        "body": f"{statement} Mit freundlichen Grüßen, Vertrieb.",
                        "content_sha256": f"{seq:064x}",
                        "stored_at": now,
                        "stored_by": "grant:bench",
                    },
                    [],
                )
                insert_rule(
                    conn,
                    {
                        "seq": seq,
                        "id": f"{SCOPE}-{seq:04d}",
                        "statement": statement,
                        "evidence_quote": statement[:40],
                        "evidence_refs": json.dumps([f"source/{sid}"]),
                        "valid_from": day,
                        "valid_to": None,
                        "supersedes": None,
                        "proposed_at": now,
                        "proposed_by": "grant:bench",
                        "channel": "api",
                    },
                )
                if rng.random() < 0.75:
                    conn.execute(
                        "INSERT INTO rule_decision (rule_id, verdict, reason, decided_by, "
                        "decided_at, channel) VALUES (?, 'adopt', NULL, 'person:bench', ?, "
                        "'approval')",
                        (f"{SCOPE}-{seq:04d}", now),
                    )


def load_links(rt: Runtime, ids: list[str], rules: int, rng: random.Random) -> tuple[str, int]:
    """LINKS rule → entity links, and one hub with 500 links; (the hub, links confirmed)."""
    db = rt.home.scope_db(SCOPE)
    author = Author.of("mcp", "grant:bench", rt.home.clock.instant(), "2026-11-30")
    now = rt.home.clock.instant()
    hub = ids[len(ids) // 2]
    pairs: set[tuple[str, str, str]] = set()
    while len(pairs) < LINKS:
        pairs.add(
            (f"rule/{SCOPE}-{rng.randint(1, rules):04d}", f"entity/{rng.choice(ids)}", "concerns")
        )
    hub_links = [(f"rule/{SCOPE}-{k:04d}", f"entity/{hub}", "concerns") for k in range(1, 301)]
    hub_links += [
        (f"source/mail:<g{k}@bench.example>", f"entity/{hub}", "mentions") for k in range(1, 151)
    ]
    hub_links += [(f"entity/{hub}", f"entity/{ids[k]}", "same_as") for k in range(1, 51)]
    made: list[str] = []
    with db.write() as conn:
        for from_ref, to_ref, type_ in [*pairs, *hub_links]:
            try:
                out = propose_link(
                    conn,
                    SCOPE,
                    author,
                    from_ref=from_ref,
                    to_ref=to_ref,
                    type=type_,
                    confidence=0.9,
                    reason="generated",
                    evidence=None,
                )
            except Exception:  # a generated end that does not exist (a meeting, not a mail)
                continue
            if to_ref == f"entity/{hub}" or from_ref == f"entity/{hub}":
                made.append(str(out.link.id))
        confirmed = made[::2]
        for seq, link_id in enumerate(confirmed, start=1):
            conn.execute(
                "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
                "decided_at) VALUES (?, ?, ?, 'confirm', 'person:bench', 'bench@example.org', ?)",
                (seq, f"{SCOPE}-r{seq:04d}", f"link/{link_id}", now),
            )
    return hub, len(confirmed)


def load_log(rt: Runtime, ids: list[str], n: int, rng: random.Random) -> None:
    db = rt.home.scope_db(SCOPE)
    operations = ["create_entity", "propose", "store_source", "search", "resolve_entity"]
    actors = ["grant:bench", "grant:mailer", "person:bench"]
    with db.write() as conn:
        for k in range(n):
            conn.execute(
                "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, refs, "
                "input_sha256) VALUES (?, ?, ?, 'mcp', ?, 'ok', ?, ?)",
                (
                    f"log-{k:07d}",
                    f"2026-11-{1 + k * 29 // n:02d}T09:00:00.000Z",
                    rng.choice(actors),
                    rng.choice(operations),
                    f'["entity/{rng.choice(ids)}"]',
                    f"{k:064x}",
                ),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="entities, and as many rules")
    parser.add_argument("--requests", type=int, default=40, help="timed requests per page")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--semantic",
        choices=("on", "off"),
        default="off",
        help="search with embeddings too; the generated texts have no vectors, and a store "
        "that far behind embeds a batch of them in every search, so on times the catch-up",
    )
    parser.add_argument(
        "--pages",
        help="time only the pages whose label contains one of these comma-separated words",
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the generated home here; a home already there is reused"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="gn-bench-pages-") as tmp:
        clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
        home = args.keep or Path(tmp)
        made = home / "bench-pages.json"
        if made.exists():
            rt = open_runtime(home, clock=clock, environ={})
            ids, hub = json.loads(made.read_text())
            print(f"reusing the home in {home}: {len(ids):,} entities")
        else:
            rt = open_runtime(home, clock=clock, environ={})
            ids, hub = generate(rt, args.n, rng)
            made.write_text(json.dumps([ids, hub]))
        rt.config.search.semantic = args.semantic
        words = args.pages.split(",") if args.pages else None
        time_pages(rt, clock, ids, hub, args.n, args.requests, words)


def generate(rt: Runtime, n: int, rng: random.Random) -> tuple[list[str], str]:
    rt.home.create_scope(SCOPE)
    started = time.perf_counter()
    load_rules(rt, n, rng)
    print(f"rules and sources: {time.perf_counter() - started:.0f} s", flush=True)
    ids = load_entities(rt, SCOPE, plan_entities(n, rng))
    print(f"entities: {time.perf_counter() - started:.0f} s", flush=True)
    hub, confirmed = load_links(rt, ids, n, rng)
    load_log(rt, ids, n, rng)
    print(
        f"generated {n:,} rules and sources, {len(ids):,} entities, {LINKS:,} links, "
        f"a hub with 500 links ({confirmed} confirmed), {n:,} log rows "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return ids, hub


def pages_of(ids: list[str], hub: str) -> list[tuple[str, str]]:
    mail = quote("mail:<g42@bench.example>", safe="")
    return [
        ("approval home", "/approval"),
        ("scope overview", f"/approval/scope?scope={SCOPE}"),
        ("tree, top level", f"/approval/tree?scope={SCOPE}"),
        ("tree, one level", f"/approval/tree?scope={SCOPE}&id={ids[0]}"),
        ("tree, page 2", f"/approval/tree?scope={SCOPE}&id={ids[0]}&page=2"),
        ("entity, hub (500 links)", f"/approval/entities/{hub}"),
        ("entity, leaf", f"/approval/entities/{ids[-1]}"),
        ("entity, department", f"/approval/entities/{ids[1]}"),
        ("entity, above 10,000", f"/approval/entities/{ids[0]}"),
        ("search", f"/approval/search?scope={SCOPE}&q=Lieferung+frei+Haus"),
        ("activity", f"/approval/activity?scope={SCOPE}"),
        (
            "activity, filtered",
            f"/approval/activity?scope={SCOPE}&actor=person:bench&operation=propose",
        ),
        ("activity, page 500", f"/approval/activity?scope={SCOPE}&reads=true&page=500"),
        ("rule", f"/approval/rules/{SCOPE}-0042"),
        ("source (mail)", f"/approval/source?scope={SCOPE}&id={mail}"),
        ("structure changes", f"/approval/structure?scope={SCOPE}"),
        ("proposed rules", f"/approval/proposals?scope={SCOPE}"),
    ]


def time_pages(
    rt: Runtime,
    clock: FixedClock,
    ids: list[str],
    hub: str,
    n: int,
    requests: int,
    words: list[str] | None = None,
) -> None:
    with contextlib.suppress(GroundnoteError):  # a kept home has the person already
        add_person(
            rt.home.instance, "bench", email="bench@example.org", org="local", now=clock.instant()
        )
    with TestClient(create_app(rt), base_url="http://127.0.0.1:8765") as client:
        token = issue_login_link(rt.home.instance, "bench", clock)
        assert client.get(f"/approval/login?token={token}").status_code == 200
        rows = []
        for label, path in pages_of(ids, hub):
            if words and not any(w in label for w in words):
                continue
            response = client.get(path)
            assert response.status_code == 200, (path, response.text[:500])
            timing = time_calls(lambda p=path: client.get(p), requests, warmup=3)
            rows.append(
                (
                    label,
                    f"{timing.p50:.1f}",
                    f"{timing.p95:.1f}",
                    f"{timing.p95 / 100:.2f}",
                    f"{len(response.content) / 1024:.0f}",
                )
            )
        print_table(
            f"server time per page at {n:,} entities and {n:,} rules ({requests} requests each, ms)",
            ["page", "p50", "p95", "p95/100ms", "KiB"],
            rows,
        )
        html = client.get(f"/approval/entities/{hub}").text
        svg = html[html.index("<svg") : html.index("</svg>") + 6]
        print(
            f"\nneighbourhood SVG of the hub (500 links): {len(svg.encode()):,} bytes, "
            f"{svg.count('<rect')} boxes drawn ({svg.count('more</text>')} '+N more'), "
            f"{svg.count('<line')} lines"
        )


if __name__ == "__main__":
    main()
