"""entity_resolve's last tier (issue 19) at scale: what it costs, and that the trigram path
keeps its cost.

`--n` entities from bench/graph.py's generator (bulk loaded), then through the registry on
the mcp channel, with `search.semantic` off and on in the same process:

* hits — exact and one-typo names spelling finds: the tier never runs, so on must equal off
  (target p95 ≤ 5 ms, DESIGN §13);
* misses — strings spelling cannot find (no candidate ≥ 0.50): off answers at once, on runs
  the tier (the catch-up check, the query's embedding, one exact scan over every name
  vector), with the query's vector cached (a repeated miss) and embedded anew;
* the tier's parts: the first load of a process, the catch-up when nothing is new, the scan;
  the vectors' memory.

The name vectors are random unit vectors written under the model's id, one per current name
and alias: a scan costs the same whatever the values, and embedding 150,000 names at ~30 a
second on this machine would take more than an hour. Misses are found with a floor of -1 for
the scan figure so that it ranks every row.

    .venv/bin/python -m bench.semantic_resolve [--n 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.common import print_table, time_calls
from bench.graph import caller, generate, load, typo
from groundnote.domain.clock import FixedClock
from groundnote.embedding import embedder_for
from groundnote.graph.name_vectors import name_vectors
from groundnote.graph.trigram import index_for
from groundnote.runtime import open_runtime


def _miss(rng: random.Random) -> str:
    """Letters no generated name holds in this order: spelling finds nothing ≥ 0.50."""
    return " ".join(
        "".join(rng.choice("qxzjvkw" + string.digits) for _ in range(rng.randint(5, 8)))
        for _ in range(2)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(7)
    home = Path(tempfile.mkdtemp(prefix="gn-bench-semantic-resolve-"))
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    rt = open_runtime(home, clock=clock, environ={"GROUNDNOTE_SEARCH__SEMANTIC": "on"})
    rt.home.create_scope("bench")
    db = rt.home.scope_db("bench")
    plan = generate(args.n, rng)
    ids = load(rt, "bench", plan)
    embedder = embedder_for(rt.config.search)
    with db.read() as conn:
        texts = [
            (int(r[0]), text)
            for r in conn.execute(
                "SELECT e.seq, k.name, k.aliases FROM entity e JOIN entity_current k ON k.id = e.id"
            )
            for text in {r[1], *json.loads(r[2])}
        ]
    vectors = np.random.default_rng(7).standard_normal((len(texts), embedder.dimension))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype("<f4")
    with db.write() as conn:
        conn.executemany(
            "INSERT INTO entity_vector (seq, text, model, dim, vector) VALUES (?, ?, ?, ?, ?)",
            [
                (seq, text, embedder.model_id, embedder.dimension, row.tobytes())
                for (seq, text), row in zip(texts, vectors, strict=True)
            ],
        )
    print(f"{len(ids):,} entities, {len(texts):,} names and aliases with a vector")
    len(index_for(db))  # the trigram index is built before anything is timed

    held = name_vectors(db, embedder)
    started = time.perf_counter()
    loaded = len(held)
    print(
        f"first load of the name vectors in a process: {loaded:,} in "
        f"{time.perf_counter() - started:.2f} s, {held.pending} pending; in memory (float16) "
        f"{loaded * embedder.dimension * 2 / 1e6:.1f} MB"
    )
    nothing = time_calls(held.catch_up, 200)
    probe = vectors[0]
    scan = time_calls(lambda: held.nearest(probe, 20, -1.0), 100, warmup=5)

    call = caller(rt, "bench")
    hits = [plan[rng.randrange(len(plan))][1] for _ in range(args.queries)]
    hits += [typo(rng, plan[rng.randrange(len(plan))][1], 1) for _ in range(args.queries)]
    rt.config.search.semantic = "off"  # type: ignore[assignment]
    drawn = [_miss(rng) for _ in range(args.queries)]
    misses = [q for q in drawn if not call("graph.entity_resolve", q=q)["candidates"]]
    print(f"{len(misses)} of {len(drawn)} drawn misses find nothing by spelling")
    counter = iter(range(10**9))

    def resolve(queries: list[str]) -> None:
        call("graph.entity_resolve", q=queries[next(counter) % len(queries)])

    rows = []
    for mode in ("off", "on"):
        rt.config.search.semantic = mode  # type: ignore[assignment]
        hit = time_calls(lambda: resolve(hits), len(hits))
        rows.append([f"hits (exact, one typo), semantic {mode}", hit.p50, hit.p95])
    for mode in ("off", "on"):
        rt.config.search.semantic = mode  # type: ignore[assignment]
        for q in misses:
            embedder.query(q)
        miss = time_calls(lambda: resolve(misses), len(misses))
        rows.append([f"misses, semantic {mode}, query vector cached", miss.p50, miss.p95])
    fresh = time_calls(lambda: resolve([_miss(rng)]), args.queries // 4, warmup=3)
    rows.append(["misses, semantic on, query embedded", fresh.p50, fresh.p95])
    rows.append(["tier part: catch-up when nothing is new", nothing.p50, nothing.p95])
    rows.append([f"tier part: exact scan of {loaded:,} name vectors", scan.p50, scan.p95])
    print_table(
        f"entity_resolve at {len(ids):,} entities (registry, mcp channel)",
        ["what", "p50 ms", "p95 ms"],
        rows,
    )
    rt.close()


if __name__ == "__main__":
    main()
