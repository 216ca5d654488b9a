"""The resolve index's memory and the cost of a cold scope (issue 16, item 3).

    .venv/bin/python -m bench.resolve_memory               # 100,000 entities
    .venv/bin/python -m bench.resolve_memory --n 20000     # a smaller run

One SQLite home, scope `big` with N generated entities (bench/graph.py's generator, loaded
with `create_entity` as bench/processes does) and scope `small` with N/10. Printed:

1. memory of `big`'s built index, per 100,000 entities: the Python heap it holds (tracemalloc,
   which sees numpy's arrays too) and the process's resident set before and after the build
   (RSS, /proc/self/statm; allocator slack included, so larger), and what emptying it gives
   back;
2. resolve on `big` warm (p50/p95 over the queries: exact names, one typo) against cold: the
   first resolve after the budget (`resolve.index_budget_entities` = N) emptied `big` for
   `small`, which rebuilds the index from entity_fts before it answers.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from bench.common import Timing
from bench.graph import generate, typo
from bench.graph import load as load_plan
from groundnote.domain.clock import FixedClock
from groundnote.graph.normalize import normalize
from groundnote.graph.resolve import resolve_key
from groundnote.graph.trigram import held_entities, index_for, set_budget
from groundnote.runtime import Runtime, open_runtime
from groundnote.store import Database

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def load(rt: Runtime, scope: str, n: int, rng: random.Random) -> list[str]:
    """N generated entities in transactions of 5,000 (without the similar check); their names."""
    rt.home.create_scope(scope)
    plan = generate(n, rng)
    load_plan(rt, scope, plan)
    index_for(rt.home.scope_db(scope)).reset()  # the bench builds it when it measures
    return [name for _, name, _, _ in plan]


def resolve_once(db: Database, query: str) -> float:
    start = time.perf_counter()
    resolve_key(index_for(db), normalize(query), query=query)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--cold", type=int, default=5, help="cold resolves timed")
    args = parser.parse_args()
    rng = random.Random(16)
    home = Path(tempfile.mkdtemp(prefix="gn-resolve-memory-"))
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    try:
        rt = open_runtime(home, clock=clock, environ={})
        rt.config.graph.max_depth = 16
        set_budget(None)
        started = time.perf_counter()
        names = load(rt, "big", args.n, rng)
        load(rt, "small", max(1000, args.n // 10), rng)
        print(f"loaded {args.n:,} + {max(1000, args.n // 10):,} entities in "
              f"{time.perf_counter() - started:.0f} s; load average {os.getloadavg()}")  # fmt: skip
        big, small = rt.home.scope_db("big"), rt.home.scope_db("small")

        # 1. memory: RSS first (tracemalloc slows the build), then the traced heap
        gc.collect()
        before = rss_mb()
        started = time.perf_counter()
        index_for(big).warm()
        build_s = time.perf_counter() - started
        rss_delta = rss_mb() - before
        index_for(big).reset()
        gc.collect()
        rss_after_reset = rss_mb()
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        index_for(big).warm()
        traced = (tracemalloc.get_traced_memory()[0] - base) / 2**20
        index_for(big).reset()
        gc.collect()
        left = (tracemalloc.get_traced_memory()[0] - base) / 2**20
        tracemalloc.stop()
        per = 100_000 / args.n
        print(f"\n1. memory of one scope's resolve index, {args.n:,} entities")
        print(f"  traced heap held     {traced:8.1f} MB  ({traced * per:.1f} MB per 100,000)")
        print(f"  traced after emptied {left:8.1f} MB")
        print(f"  RSS growth on build  {rss_delta:8.1f} MB  ({rss_delta * per:.1f} MB per 100,000)")
        print(f"  RSS after emptied    {rss_after_reset - before:+8.1f} MB against before the build "
              "(the allocator keeps some pages)")  # fmt: skip
        print(f"  build time           {build_s * 1000:8.0f} ms")

        # 2. warm against cold
        qrng = random.Random(17)
        picked = [qrng.choice(names) for _ in range(args.queries)]
        queries = [n if i % 2 else typo(qrng, n, 1) for i, n in enumerate(picked) if len(n) > 4]
        index_for(big).warm()
        warm = Timing([resolve_once(big, q) for q in queries])
        set_budget(args.n)
        cold_ms = []
        for q in queries[: args.cold]:
            index_for(small).warm()  # small in use: big no longer fits beside it
            assert not index_for(big).built and held_entities() <= args.n
            cold_ms.append(resolve_once(big, q))
        cold = Timing(cold_ms)
        print(f"\n2. resolve on `big`, ms (budget {args.n:,} entities, so `small` pushes it out)")
        print(f"  warm  p50 {warm.p50:7.2f}  p95 {warm.p95:7.2f}  ({len(queries)} queries)")
        print(f"  cold  p50 {cold.p50:7.0f}  max {max(cold_ms):7.0f}  ({len(cold_ms)} first "
              "resolves after eviction, each rebuilding the index)")  # fmt: skip
        print(f"  cold / warm p95: {cold.p50 / warm.p95:.0f}x")
        print(f"\nload average at the end {os.getloadavg()} (2 cores, shared)")
        rt.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
