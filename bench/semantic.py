"""Semantic recall: quality of full text, embeddings and hybrid; cost at scale.

Quality, on bench/data/semantic_rules.json (60 target rules, German and English, each with a
German and an English paraphrase question that shares few or no words with it, and an
exact-wording question; among 440 distractor rules): hit@1, hit@5 and MRR of

* text      — search with `search.semantic: off` (today's full text);
* embedding — the nearest rules by the local model alone (no full text, no floor);
* hybrid    — search with `search.semantic: on` (the fusion of core/hybrid.py);

per kind of question: de→de, en→en, across languages (de→en, en→de), exact wording.

Cost: embedding throughput (texts/s, the import's rate), search p95 through the registry at
--n rules and --n sources (so 2 × n texts) with embeddings on, the query embedding cached
(a repeated question) and not, and the memory of the vectors. At scale the vectors are
random unit vectors written under the model's id: a search's cost does not depend on their
values, and embedding 100,000 texts at ~30 texts/s on this machine would take an hour.

    .venv/bin/python -m bench.semantic [--n 50000] [--queries 200] [--server postgresql://…]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import print_table, throwaway_database, time_calls
from bench.core import WORDS, generate
from groundnote.auth import Right, create_grant
from groundnote.core.capabilities import PROPOSE_RULE, SEARCH, STORE_SOURCE
from groundnote.core.vectors import vector_index
from groundnote.embedding import embedder_for
from groundnote.runtime import Runtime, open_runtime

DATA = Path(__file__).parent / "data" / "semantic_rules.json"
KINDS = ["de→de", "en→en", "across", "exact", "all paraphrases"]


def _grant(runtime: Runtime, scope: str) -> Any:
    _, token = create_grant(
        runtime.home.instance,
        "bench",
        rights={scope: Right.PROPOSE},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    return runtime.authenticate(token)


def _fill(runtime: Runtime, grant: Any, data: dict[str, Any]) -> dict[str, str]:
    """Every rule proposed (the scope adopts at once); statement → rule id."""
    source = {
        "kind": "mail",
        "id": "mail:<rules@bench.example>",
        "subject": "Regeln",
        "sender": "office@bench.example",
        "to": ["all@bench.example"],
        "sent_at": "2026-10-01T08:00:00.000Z",
        "body": "Die Regeln des Hauses.",
    }
    runtime.invoke(
        STORE_SOURCE, {"scope": "recall", "source": source}, principal=grant, channel="api"
    )
    ids = {}
    statements = [t["rule"] for t in data["targets"]] + data["distractors"]
    random.Random(19).shuffle(statements)
    for statement in statements:
        out = runtime.invoke(
            PROPOSE_RULE,
            {
                "scope": "recall",
                "statement": statement,
                "evidence": {"quote": statement[:40], "refs": [f"source/{source['id']}"]},
            },
            principal=grant,
            channel="api",
        )
        ids[statement] = out.model_dump()["id"]
    return ids


def _questions(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(kind, question, the rule it means)."""
    out = []
    for target in data["targets"]:
        for q in target["queries"]:
            kind = f"{q['lang']}→{q['lang']}" if q["lang"] == target["lang"] else "across"
            out.append((kind, q["query"], target["rule"]))
        out.append(("exact", target["exact"], target["rule"]))
    return out


def _scores(ranks: list[int | None]) -> tuple[float, float, float]:
    n = len(ranks)
    hit1 = sum(1 for r in ranks if r == 1) / n
    hit5 = sum(1 for r in ranks if r is not None and r <= 5) / n
    mrr = sum(1 / r for r in ranks if r is not None) / n
    return hit1, hit5, mrr


def quality() -> None:
    data = json.loads(DATA.read_text("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        runtime = open_runtime(Path(tmp), environ={})
        runtime.home.create_scope("recall", approval_mode="auto")
        grant = _grant(runtime, "recall")
        ids = _fill(runtime, grant, data)
        db = runtime.home.scope_db("recall")
        embedder = embedder_for(runtime.config.search)
        index = vector_index(db, embedder)
        started = time.perf_counter()
        embedded = index.catch_up(limit=None)
        rate = embedded / (time.perf_counter() - started)
        print(f"embedded {embedded} rules and sources: {rate:.1f} texts/s (import rate)")
        with db.read() as conn:
            by_seq = {r[0]: r[1] for r in conn.execute("SELECT seq, id FROM rule ORDER BY seq")}

        def search(question: str, semantic: str) -> list[str]:
            runtime.config.search.semantic = semantic  # type: ignore[assignment]
            out = runtime.invoke(
                SEARCH,
                {"scope": "recall", "query": question, "limit": 10, "compact": False},
                principal=grant,
                channel="api",
            ).model_dump()
            return [b["head"]["id"] for b in out["bundles"]]

        def nearest(question: str) -> list[str]:
            near = index.nearest(embedder.query(question), "rule", 10, -1.0)
            return [by_seq[seq] for seq, _ in near]

        methods = {
            "text": lambda q: search(q, "off"),
            "embedding": nearest,
            "hybrid": lambda q: search(q, "on"),
        }
        ranks: dict[tuple[str, str], list[int | None]] = {}
        for kind, question, rule in _questions(data):
            want = ids[rule]
            for name, method in methods.items():
                found = method(question)
                rank = found.index(want) + 1 if want in found else None
                ranks.setdefault((name, kind), []).append(rank)
                if kind != "exact":
                    ranks.setdefault((name, "all paraphrases"), []).append(rank)
        rows = []
        for kind in KINDS:
            for name in methods:
                rows.append([kind, name, len(ranks[name, kind]), *_scores(ranks[name, kind])])
        print_table(
            f"recall over {len(ids)} rules ({len(data['targets'])} targets)",
            ["questions", "method", "n", "hit@1", "hit@5", "MRR"],
            rows,
        )
        runtime.close()


def cost(n: int, queries: int, url: str | None = None) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        runtime = open_runtime(Path(tmp), environ={}, database_url=url)
        runtime.home.create_scope("bench")
        grant = _grant(runtime, "bench")
        generate(runtime, "bench", n, rng)
        db = runtime.home.scope_db("bench")
        embedder = embedder_for(runtime.config.search)
        dim, model = embedder.dimension, embedder.model_id
        vectors = np.random.default_rng(7).standard_normal((2 * n, dim)).astype("<f4")
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with db.write() as conn:
            conn.executemany(
                "INSERT INTO text_vector (id, kind, seq, model, dim, vector) VALUES (?,?,?,?,?,?)",
                [
                    (
                        i + 1,
                        "rule" if i < n else "source",
                        i % n + 1,
                        model,
                        dim,
                        vectors[i].tobytes(),
                    )
                    for i in range(2 * n)
                ],
            )
        index = vector_index(db, embedder)
        started = time.perf_counter()
        index.catch_up()
        print(
            f"first catch-up of a process (one look at every text): {time.perf_counter() - started:.2f} s"
        )
        started = time.perf_counter()
        loaded = len(index)
        load_s = time.perf_counter() - started
        print(
            f"loaded {loaded:,} vectors in {load_s:.2f} s; in memory as float16 "
            f"{dim * 2 * 100_000 / 1e6:.1f} MB per 100,000 (stored as float32: "
            f"{dim * 4 * 100_000 / 1e6:.1f} MB per 100,000 in the file)"
        )
        started = time.perf_counter()
        for _ in range(100):
            index.catch_up()
        print(f"catch-up when nothing is new: {(time.perf_counter() - started) * 10:.2f} ms")
        questions = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(queries)]
        counter = iter(range(10**9))
        probe = vectors[0]
        scan = time_calls(lambda: index.nearest(probe, "rule", 100, -1.0), 50, warmup=5)
        print(
            f"exact scan of the {n:,} rule vectors alone: p50 {scan.p50:.1f} ms, p95 {scan.p95:.1f} ms"
        )

        def run(text: str) -> None:
            runtime.invoke(
                SEARCH,
                {"scope": "bench", "query": text, "compact": True},
                principal=grant,
                channel="api",
            )

        rows = []
        runtime.config.search.semantic = "off"  # type: ignore[assignment]
        off = time_calls(lambda: run(questions[next(counter) % queries]), queries)
        rows.append(["text only", off.p50, off.p95])
        runtime.config.search.semantic = "on"  # type: ignore[assignment]
        for q in questions:
            embedder.query(q)
        cached = time_calls(lambda: run(questions[next(counter) % queries]), queries)
        rows.append(["hybrid, query vector cached", cached.p50, cached.p95])
        fresh = time_calls(
            lambda: run(f"{questions[next(counter) % queries]} {next(counter)}"),
            queries // 2,
            warmup=5,
        )
        rows.append(["hybrid, query embedded", fresh.p50, fresh.p95])
        print_table(
            f"search over {n:,} rules + {n:,} sources ({2 * n:,} vectors) on "
            f"{'PostgreSQL' if url else 'SQLite'}",
            ["search", "p50 ms", "p95 ms"],
            rows,
        )
        print(f"ratio hybrid (cached) / text p95: {cached.p95 / off.p95:.2f}")
        runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50_000, help="rules, and as many sources")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument(
        "--server",
        help="measure the cost on PostgreSQL too: a server URL (a throwaway database is made)",
    )
    args = parser.parse_args()
    if not args.skip_quality:
        quality()
    if not args.skip_cost:
        cost(args.n, args.queries)
        if args.server:
            with throwaway_database(args.server) as url:
                cost(args.n, args.queries, url)


if __name__ == "__main__":
    main()
