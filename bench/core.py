"""Core at scale: search over N rules and N sources, propose rate, export and import rate.

Generates one scope with N mails and meeting notes (German and English business text, a
third of the mails replying in threads, one in five with an attachment) and N rules citing
them, three quarters adopted; then measures, through the registry (rights, validation,
operation log) on the api channel:

* search p50/p95 over 300 queries of one to three words (target p95 ≤ 20 ms, DESIGN §13);
* propose_rule per second (500 proposals);
* export (rows per second) and import of that export into an empty scope.

    .venv/bin/python -m bench.core [--n 100000] [--queries 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.common import peak_rss_mb, print_table, time_calls
from groundnote.auth import Right, create_grant
from groundnote.core.capabilities import PROPOSE_RULE, SEARCH
from groundnote.core.propose import insert_rule
from groundnote.core.sources import insert_source
from groundnote.runtime import SCOPE_TRANSFER, Runtime, open_runtime
from groundnote.store.transfer import export_lines, import_lines

CUSTOMERS = [
    "Müller Logistik",
    "Bäckerei Schröder",
    "Hansen & Söhne",
    "Nordwind Energie",
    "Kraft Metallbau",
    "Alpen Spedition",
    "Weber Elektro",
    "Acme Corp",
    "Globex Ltd",
    "Initech",
    "Stark Industries",
    "Umbrella Health",
    "Wayne Freight",
    "Blue Harbor Foods",
    "Greenfield Farms",
    "Öztürk Textil",
]
REGIONS = [
    "Nord",
    "Süd",
    "Ost",
    "West",
    "Österreich",
    "Schweiz",
    "Benelux",
    "UK",
    "Nordics",
    "Iberia",
]
PRODUCTS = [
    "Rahmenvertrag",
    "Ersatzteile",
    "Wartungsvertrag",
    "Palettenware",
    "Kühlcontainer",
    "software licences",
    "spare parts",
    "service contract",
    "cold-chain shipments",
    "consulting days",
]
DE = [
    "Für {c} gilt im Gebiet {r} ein Rabatt von {p} Prozent auf {x}.",
    "Rechnungen an {c} werden mit {p} Tagen Zahlungsziel gestellt; {x} nur gegen Vorkasse.",
    "Lieferungen nach {r} für {c} gehen ausschließlich per Spedition, {x} mit Zollpapieren.",
    "Angebote über {x} an {c} brauchen ab {p}.000 Euro die Freigabe der Vertriebsleitung {r}.",
    "Reklamationen von {c} zu {x} beantwortet der Innendienst {r} binnen {p} Werktagen.",
    "Skonto von {p} Prozent für {c}, wenn {x} innerhalb von zehn Tagen bezahlt werden.",
]
EN = [
    "Orders of {x} from {c} in region {r} get a {p} percent volume discount.",
    "Invoices to {c} are payable within {p} days; {x} are billed monthly.",
    "Shipments of {x} to {r} for {c} require a signed delivery note and customs papers.",
    "Quotes above {p},000 EUR for {x} need approval by the {r} sales lead before they go to {c}.",
    "Complaints by {c} about {x} are answered by the {r} service desk within {p} working days.",
    "{c} may return unused {x} within {p} weeks of delivery in region {r}.",
]
SUBJECTS = [
    "Re: Konditionen {c}",
    "Angebot {x} {r}",
    "Fwd: pricing for {c}",
    "Meeting notes {r}",
    "{x} – Rückfrage",
]
WORDS = sorted(
    {w.strip(",.;:").lower() for t in DE + EN for w in t.split() if "{" not in w and len(w) > 4}
    | {w.lower() for name in CUSTOMERS + REGIONS + PRODUCTS for w in name.split() if len(w) > 2}
)


def sentence(rng: random.Random) -> str:
    template = rng.choice(DE if rng.random() < 0.6 else EN)
    return template.format(
        c=rng.choice(CUSTOMERS), r=rng.choice(REGIONS), p=rng.randint(2, 30), x=rng.choice(PRODUCTS)
    )


def _day(rng: random.Random) -> str:
    return f"20{rng.randint(22, 26)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def generate(runtime: Runtime, scope: str, n: int, rng: random.Random) -> float:
    """N sources and N rules written straight through the domain's insert functions."""
    db = runtime.home.scope_db(scope)
    now = runtime.home.clock.instant()
    started = time.perf_counter()
    batch = 5000
    for first in range(1, n + 1, batch):
        with db.write() as conn:
            for seq in range(first, min(n, first + batch - 1) + 1):
                day = _day(rng)
                mail = rng.random() < 0.8
                sid = f"mail:<g{seq}@bench.example>" if mail else f"jamie:meeting-{seq}"
                reply = (
                    f"<g{rng.randint(max(1, seq - 50), seq - 1)}@bench.example>"
                    if mail and seq > 1 and rng.random() < 0.33
                    else None
                )
                body = " ".join(sentence(rng) for _ in range(rng.randint(2, 6)))
                row: dict[str, Any] = {
                    "seq": seq,
                    "id": sid,
                    "kind": "mail" if mail else "meeting",
                    "title": rng.choice(SUBJECTS).format(
                        c=rng.choice(CUSTOMERS), r=rng.choice(REGIONS), x=rng.choice(PRODUCTS)
                    ),
                    "day": day,
                    "sent_at": f"{day}T09:00:00.000Z" if mail else None,
                    "sender": "vertrieb@bench.example" if mail else None,
                    "recipients": '["kunde@bench.example"]' if mail else "[]",
                    "cc": "[]",
                    "in_reply_to": reply,
                    "refs": json.dumps([reply] if reply else []),
                    "participants": "[]" if mail else '["Ines Kraft", "Tom Berger"]',
                    "body": body,
                    "content_sha256": f"{seq:064x}",
                    "stored_at": now,
                    "stored_by": "grant:bench",
                }
                atts = []
                if rng.random() < 0.2:
                    text = sentence(rng)
                    atts.append(
                        {
                            "n": 1,
                            "filename": f"anlage-{seq}.txt",
                            "media_type": "text/plain",
                            "size": len(text.encode()),
                            "sha256": f"{seq:064x}",
                            "text": text,
                        }
                    )
                insert_source(conn, row, atts)
                refs = [f"source/{sid}"] + ([f"attachment/{sid}#1"] if atts else [])
                statement = sentence(rng)
                insert_rule(
                    conn,
                    {
                        "seq": seq,
                        "id": f"{scope}-{seq:04d}",
                        "statement": statement,
                        "evidence_quote": statement[:60],
                        "evidence_refs": json.dumps(refs),
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
                        "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, "
                        "decided_at, channel) SELECT coalesce(max(seq), 0) + 1, ?, 'adopt', NULL, "
                        "'person:bench', ?, 'approval' FROM rule_decision",
                        (f"{scope}-{seq:04d}", now),
                    )
    return time.perf_counter() - started


def _digest(lines: Iterable[str], old: str = "", new: str = "") -> str:
    """sha256 of an export, with the scope renamed from `old` to `new` as an import does."""
    digest = hashlib.sha256()
    for line in lines:
        if old:
            line = line.replace(f'"{old}-', f'"{new}-').replace(
                f'"scope":"{old}"', f'"scope":"{new}"'
            )
        digest.update(line.encode())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="rules, and as many sources")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--proposals", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        runtime = open_runtime(Path(tmp), environ={})
        runtime.home.create_scope("bench")
        _, token = create_grant(
            runtime.home.instance,
            "bench",
            rights={"bench": Right.PROPOSE},
            channels=["api"],
            org="local",
            now=runtime.home.clock.instant(),
        )
        grant = runtime.authenticate(token)
        gen_s = generate(runtime, "bench", args.n, rng)
        print(f"generated {args.n:,} sources and {args.n:,} rules in {gen_s:.1f} s")

        queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(args.queries)]
        sizes: list[int] = []

        def one_search() -> None:
            out = runtime.invoke(
                SEARCH,
                {"scope": "bench", "query": queries[len(sizes) % len(queries)], "compact": True},
                principal=grant,
                channel="api",
            )
            sizes.append(len(out.model_dump()["bundles"]))

        search = time_calls(one_search, args.queries, warmup=20)
        hits = sum(1 for s in sizes if s) / len(sizes)

        evidence = {"quote": "Rabatt", "refs": ["source/mail:<g1@bench.example>"]}
        counter = iter(range(10**9))

        def one_propose() -> None:
            runtime.invoke(
                PROPOSE_RULE,
                {
                    "scope": "bench",
                    "statement": f"{sentence(rng)} #{next(counter)}",
                    "evidence": evidence,
                },
                principal=grant,
                channel="api",
            )

        propose = time_calls(one_propose, args.proposals, warmup=10)

        # Export to a file and import from it line by line, as `groundnote import` would: the
        # lines never sit in memory together, so peak RSS measures search, not the export.
        export_path = Path(tmp) / "bench.jsonl"
        started = time.perf_counter()
        with runtime.home.scope_db("bench").read() as conn, export_path.open("w") as out:
            rows = (
                sum(
                    out.write(line + "\n") > 0
                    for line in export_lines(conn, SCOPE_TRANSFER, "bench")
                )
                - 1
            )
        export_s = time.perf_counter() - started
        with export_path.open() as lines:
            first = _digest((line.rstrip("\n") for line in lines), "bench", "copy")
        runtime.home.create_scope("copy")
        started = time.perf_counter()
        with runtime.home.scope_db("copy").write() as conn, export_path.open() as lines:
            import_lines(conn, SCOPE_TRANSFER, "copy", lines)
        import_s = time.perf_counter() - started
        with runtime.home.scope_db("copy").read() as conn:
            same = _digest(export_lines(conn, SCOPE_TRANSFER, "copy")) == first
        print_table(
            f"core at {args.n:,} rules + {args.n:,} sources (2 cores, SQLite, registry on the api channel)",
            ["what", "p50 ms", "p95 ms", "per second", "note"],
            [
                [
                    "search",
                    search.p50,
                    search.p95,
                    search.per_second,
                    f"target p95 ≤ 20 ms; {hits:.0%} of queries hit",
                ],
                [
                    "propose_rule",
                    propose.p50,
                    propose.p95,
                    propose.per_second,
                    "with evidence check, FTS, log",
                ],
                ["export", "", "", rows / export_s, f"{rows:,} rows in {export_s:.1f} s"],
                [
                    "import",
                    "",
                    "",
                    rows / import_s,
                    f"{rows:,} rows in {import_s:.1f} s; re-export identical: {same}",
                ],
            ],
        )
        print(f"peak RSS {peak_rss_mb():.0f} MB")
        runtime.close()


if __name__ == "__main__":
    main()
