"""The context store at size: a generated project of 10,000 documents (≈200,000 blocks) with
targets in two locales and 2,000 concepts with terms in 3 locales. Prints `up` cold, `up`
incremental (one file changed), occurrence search p95 and each query shape's p95.

    .venv/bin/python -m bench.context [--docs 10000] [--blocks 20] [--concepts 2000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from bench.common import peak_rss_mb, print_table, time_calls
from groundnote.auth import LOCAL_OPERATOR
from groundnote.context import query
from groundnote.context.converge import up
from groundnote.context.occurrence import find
from groundnote.context.projectdb import ProjectDB
from groundnote.context.vocabulary import Scope
from groundnote.domain.clock import SystemClock
from groundnote.runtime import open_runtime

LOCALES = ["de-DE", "nb-NO"]
FILLER = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "with",
    "on",
    "by",
    "that",
    "this",
    "from",
    "your",
    "our",
    "is",
    "are",
    "can",
    "will",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(4))


def generate(root: Path, docs: int, blocks: int, concepts: int, seed: int = 7) -> list[str]:
    """Write the project; returns the concept ids."""
    rng = random.Random(seed)
    words = {loc: [_word(rng) for _ in range(concepts)] for loc in ["en", *LOCALES]}
    terms = {
        "concepts": [
            {
                "id": f"c{i:04d}",
                "terms": [
                    {"text": words[loc][i], "locale": loc, "status": "preferred"}
                    for loc in ["en", *LOCALES]
                ]
                + [
                    {
                        "text": words["en"][i] + "s",
                        "locale": "en",
                        "status": "deprecated",
                        "from": "2026-06-01",
                        "market": "US",
                    }
                ],
            }
            for i in range(concepts)
        ]
    }
    (root / "terms.json").write_text(json.dumps(terms))
    (root / "groundnote-context.yaml").write_text(
        "project: bench\nsource_locale: en\ncollections:\n"
        "  - label: guides\n    files: ['guides/**/*.md']\n    governance:\n"
        "      - {profile: formal, channel: web, from: 2026-01-01}\n"
        "  - label: blog\n    files: ['blog/**/*.md']\n"
    )

    def sentence(loc: str) -> str:
        parts = [rng.choice(FILLER) for _ in range(rng.randint(6, 14))]
        for _ in range(rng.randint(0, 2)):
            parts.insert(rng.randrange(len(parts)), rng.choice(words[loc]))
        parts.append(_word(rng))  # mostly unique blocks
        return " ".join(parts) + "."

    for d in range(docs):
        rel = f"{'guides' if d % 3 else 'blog'}/s{d // 500:02d}/d{d:05d}.md"
        for loc, folder in [("en", root), *((loc, root / "targets" / loc) for loc in LOCALES)]:
            file = folder / rel
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(
                f"# Title {d}\n\n" + "\n\n".join(sentence(loc) for _ in range(blocks - 1))
            )
    return [c["id"] for c in terms["concepts"]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--concepts", type=int, default=2_000)
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    clock = SystemClock()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        concepts = generate(root, args.docs, args.blocks, args.concepts)
        print(f"generated {args.docs} documents in {time.perf_counter() - start:.1f} s")

        start = time.perf_counter()
        cold = up(root, clock)
        cold_s = time.perf_counter() - start
        changed = next(root.glob("guides/**/*.md"))
        changed.write_text(changed.read_text() + "\n\nOne more paragraph about email.\n")
        start = time.perf_counter()
        warm = up(root, clock)
        warm_s = time.perf_counter() - start
        print_table(
            "context up",
            ["run", "seconds", "blocks", "nodes", "edges"],
            [
                ("cold", cold_s, cold.blocks, cold.nodes, cold.edges),
                ("one file changed", warm_s, warm.blocks, warm.nodes, warm.edges),
            ],
        )

        rng = random.Random(3)
        store = ProjectDB.open(root, clock)
        terms = store.terms.source().concepts
        everywhere = Scope()
        # One key, not every placement: those would set the peak RSS printed below.
        some_key = store.blocks.content_keys("", len(concepts) + 1)[-1]

        def occurrence() -> None:
            term = rng.choice(rng.choice(terms).terms)
            store.blocks.reconcile_index()
            find(store.blocks, term.text, term.locale, "en")

        def concept() -> str:
            return rng.choice(concepts)

        at = clock.instant()
        shapes = {
            "occurrence search": occurrence,
            "uses": lambda: query.uses(store.graph, concept(), everywhere),
            "projects_using_concept": lambda: query.projects_using_concept(
                store.graph, concept(), everywhere
            ),
            "uses_by_project": lambda: query.uses_by_project(
                store.graph, concept(), everywhere, at=at, market="US"
            ),
            "collections_at_coordinate": lambda: query.collections_at_coordinate(
                store.graph, "formal", "web", everywhere, at=at
            ),
            "blessings_of_block": lambda: query.blessings_of_block(
                store.graph, some_key, everywhere
            ),
            "blocks_with_content_key": lambda: query.blocks_with_content_key(
                store.graph, some_key, everywhere
            ),
        }
        rows = []
        for name, fn in shapes.items():
            timing = time_calls(fn, args.n)
            rows.append((name, timing.p50, timing.p95))
        store.close()
        print_table("query shapes (ms)", ["shape", "p50", "p95"], rows)
        print(f"\npeak RSS {peak_rss_mb():.0f} MB")
        _served(root, concepts, args.n)


def _served(root: Path, concepts: list[str], n: int) -> None:
    """context_search through the registry on the bound project, then publish to the rollup
    (last: it reads the project's whole graph, so it sets its own peak)."""
    runtime = open_runtime(root / "home", environ={})
    runtime.home.create_scope("bench")
    call = runtime.registry.get
    runtime.invoke(
        call("context.bind"),
        {"path": str(root), "scope": "bench"},
        principal=LOCAL_OPERATOR,
        channel="cli",
    )
    rng = random.Random(5)
    timing = time_calls(
        lambda: runtime.invoke(
            call("context.search"),
            {"scope": "bench", "term": rng.choice(concepts), "market": "US"},
            principal=LOCAL_OPERATOR,
            channel="cli",
        ),
        n,
    )
    start = time.perf_counter()
    runtime.invoke(
        call("context.publish"), {"path": str(root)}, principal=LOCAL_OPERATOR, channel="cli"
    )
    publish_s = time.perf_counter() - start
    runtime.close()
    print_table(
        "served",
        ["what", "result"],
        [
            ("context_search direct, p50 / p95 ms", f"{timing.p50:.1f} / {timing.p95:.1f}"),
            ("publish to the rollup, s", f"{publish_s:.1f}"),
        ],
    )
    print(f"\npeak RSS after publish {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
