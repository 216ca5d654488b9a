"""Benchmark of several processes on one home (issue 12): resolve while another process writes,
the change record's catch-up, and writers in several processes on one scope file.

    .venv/bin/python -m bench.processes             # 100,000 entities
    .venv/bin/python -m bench.processes --n 20000   # a smaller run

1. resolve p50/p95/max at N entities, direct (`resolve_key` on the scope's index, which
   checks the change record first, as every resolve does; that catch-up is also timed apart)
   and through the registry (with the operation log row, which waits for the write lock),
   first quiet, then while another
   process creates 50 entities per second through the registry with every check;
2. the catch-up: another handle on the file (as another process) commits K entities, then
   this process's next read takes them in: microseconds per changed entity, beside the cost of
   the check when nothing changed and of a full rebuild of the index;
3. writes per second with 1, 2 and 4 writer processes on one scope (`create_entity` with every
   check in its own `db.write()` transaction, without the registry and its operation log),
   and the wait per write: from asking for the write until `BEGIN IMMEDIATE` held the file
   (the in-process gate and SQLite's lock), p50, p99 and max.

The generator is bench/graph.py's (German organisations, departments, projects, people).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import shutil
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import Timing
from bench.graph import generate, load, typo
from groundnote.auth import Principal, Right
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import DuplicateCandidate
from groundnote.graph.entities import Author, create_entity
from groundnote.graph.normalize import normalize
from groundnote.graph.resolve import resolve_key
from groundnote.graph.trigram import TrigramIndex, index_for
from groundnote.runtime import Runtime, open_runtime

AGENT = Principal(
    id="grant:bench", org="local", channels=frozenset({"mcp"}), rights={"*": Right.PROPOSE}
)
SCOPE = "bench"


def _queries(names: list[str], rng: random.Random, count: int) -> list[str]:
    picked = rng.sample(names, count)
    spelled = [n.replace("ü", "ue").replace("ö", "oe").replace("ä", "ae") for n in picked]
    return [*picked, *spelled, *(typo(rng, n, 1) for n in picked)]


def _open(home: str) -> Runtime:
    rt = open_runtime(Path(home), environ={})
    rt.config.graph.max_depth = 16
    return rt


def _new_name() -> str:
    # 32 random hex digits share next to nothing with the generated German names or with each
    # other, so a create passes the similar check (a refusal is counted, never hidden).
    return uuid.uuid4().hex


# -- 1. resolve while another process writes ------------------------------------------------


def _steady_writer(home: str, rate: float, ready: Any, stop: Any, done: Any) -> None:
    rt = _open(home)
    create = rt.registry.get("graph.entity_create")
    rt.warm([SCOPE])
    ready.set()
    tries = written = 0
    start = time.perf_counter()
    while not stop.is_set():
        pause = start + tries / rate - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        tries += 1
        raw = {"scope": SCOPE, "type": "organisation", "name": _new_name()}
        with contextlib.suppress(DuplicateCandidate):  # kept out of the count, never hidden
            rt.invoke(create, raw, principal=AGENT, channel="mcp")
            written += 1
    done.put((written, tries, time.perf_counter() - start))
    rt.close()


def _resolve_times(
    rt: Runtime, queries: list[str], seconds: float
) -> tuple[Timing, Timing, Timing]:
    db = rt.home.scope_db(SCOPE)
    index = index_for(db)
    resolve = rt.registry.get("graph.entity_resolve")
    direct: list[float] = []
    catching: list[float] = []
    registry: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for q in queries:
            key = normalize(q)
            t0 = time.perf_counter()
            index.warm()  # what resolve_key's first index read would do, timed apart
            t1 = time.perf_counter()
            resolve_key(index, key)
            direct.append((time.perf_counter() - t0) * 1000)
            catching.append((t1 - t0) * 1000)
            t0 = time.perf_counter()
            rt.invoke(resolve, {"scope": SCOPE, "q": q}, principal=AGENT, channel="mcp")
            registry.append((time.perf_counter() - t0) * 1000)
            if time.perf_counter() >= end:
                break
    return Timing(direct), Timing(registry), Timing(catching)


def resolve_under_writes(rt: Runtime, home: str, queries: list[str], seconds: float) -> None:
    quiet = _resolve_times(rt, queries, seconds)
    context = multiprocessing.get_context("spawn")
    ready, stop, done = context.Event(), context.Event(), context.Queue()
    writer = context.Process(target=_steady_writer, args=(home, 50.0, ready, stop, done))
    writer.start()
    ready.wait(300)
    busy = _resolve_times(rt, queries, seconds)
    stop.set()
    written, tries, took = done.get(timeout=120)
    writer.join(60)
    print(f"\n1. resolve at {len(index_for(rt.home.scope_db(SCOPE))):,} entities, ms")
    print(
        f"   another process created {written} entities in {took:.1f} s "
        f"({written / took:.1f}/s; {tries - written} refused as similar)"
    )
    print(f"   {'':<42}{'n':>7}{'p50':>8}{'p95':>8}{'max':>8}")
    for label, (direct, registry, catching) in (("quiet", quiet), ("while writing 50/s", busy)):
        rows = (("direct", direct), ("of it the catch-up", catching), ("registry", registry))
        for how, t in rows:
            name = f"{label}, {how}"
            print(
                f"   {name:<42}{len(t.samples):>7}{t.p50:>8.2f}{t.p95:>8.2f}{t.samples[-1]:>8.2f}"
            )
    print(
        f"   p95 ratio while writing / quiet: direct {busy[0].p95 / quiet[0].p95:.2f}x, "
        f"registry {busy[1].p95 / quiet[1].p95:.2f}x"
    )


# -- 2. the catch-up -----------------------------------------------------------------------


def catch_up_cost(rt: Runtime) -> None:
    db = rt.home.scope_db(SCOPE)
    index = index_for(db)
    index.warm()
    other = rt.home.open_unmigrated(SCOPE)  # another process's handle and writer
    author = Author.of("mcp", "grant:other", rt.home.clock.instant(), "2026-11-30")
    print("\n2. catch-up of this process's index after another process's commits")
    nothing = []
    for _ in range(2000):
        t0 = time.perf_counter()
        index.exact("nothing changed")
        nothing.append((time.perf_counter() - t0) * 1e6)
    t = Timing(nothing)
    print(f"   an index read when nothing changed: p50 {t.p50:.1f} µs, p95 {t.p95:.1f} µs")
    for k in (1, 10, 100, 1000, 10000):
        took = []
        for _ in range(min(20, max(1, 1000 // k))):  # the median of several for small K
            with other.write() as conn:
                for _ in range(k):
                    create_entity(
                        conn,
                        index_for(other),
                        rt.config.graph,
                        SCOPE,
                        author,
                        type="organisation",
                        name=_new_name(),
                        aliases=[],
                        parent_id=None,
                        similar_check=False,
                    )
            t0 = time.perf_counter()
            index.exact("caught up")
            took.append(time.perf_counter() - t0)
        median = Timing(took).p50
        print(f"   {k:>6} changed: {median * 1000:8.2f} ms, {median / k * 1e6:8.1f} µs per entity")
    fresh = TrigramIndex(db)
    t0 = time.perf_counter()
    size = len(fresh)
    rebuilt = time.perf_counter() - t0
    print(f"   beside: a full rebuild of the index, {size:,} entities, {rebuilt:.2f} s")
    other.close()


# -- 3. writers in several processes ---------------------------------------------------------


def _writer(home: str, count: int, barrier: Any, results: Any) -> None:
    rt = _open(home)
    db = rt.home.scope_db(SCOPE)
    index = index_for(db)
    index.warm()
    author = Author.of("mcp", "grant:w", rt.home.clock.instant(), "2026-11-30")
    waits: list[float] = []
    refused = 0
    barrier.wait()
    start = time.perf_counter()
    for _ in range(count):
        asked = time.perf_counter()
        try:
            with db.write() as conn:
                waits.append((time.perf_counter() - asked) * 1000)
                create_entity(
                    conn,
                    index,
                    rt.config.graph,
                    SCOPE,
                    author,
                    type="organisation",
                    name=_new_name(),
                    aliases=[],
                    parent_id=None,
                )
        except DuplicateCandidate:
            refused += 1
    results.put((start, time.perf_counter(), waits, refused))
    rt.close()


def writers(home: str, per_process: int) -> None:
    print(
        f"\n3. create_entity with every check, one transaction each (no registry), "
        f"{per_process} per process, on one scope file"
    )
    print(f"   {'processes':<11}{'writes/s':>10}{'wait p50':>10}{'p99':>8}{'max':>8}  (ms)")
    context = multiprocessing.get_context("spawn")
    base = None
    for processes in (1, 2, 4):
        barrier = context.Barrier(processes)
        results = context.Queue()
        workers = [
            context.Process(target=_writer, args=(home, per_process, barrier, results))
            for _ in range(processes)
        ]
        for worker in workers:
            worker.start()
        got = [results.get(timeout=900) for _ in workers]
        for worker in workers:
            worker.join(60)
        wall = max(end for _, end, _, _ in got) - min(start for start, _, _, _ in got)
        rate = processes * per_process / wall
        base = base or rate
        waits = Timing([w for _, _, ws, _ in got for w in ws])
        refused = sum(r for _, _, _, r in got)
        print(
            f"   {processes:<11}{rate:>10.0f}{waits.p50:>10.2f}{waits.pct(99):>8.2f}"
            f"{waits.samples[-1]:>8.2f}  ({rate / base:.2f}x of one; {refused} refused as "
            "similar)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="entities to generate")
    parser.add_argument("--queries", type=int, default=100, help="names per query kind")
    parser.add_argument("--seconds", type=float, default=10, help="per resolve phase")
    parser.add_argument("--writes", type=int, default=300, help="per writer process")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    home = Path(tempfile.mkdtemp(prefix="gn-bench-processes-"))
    rt = open_runtime(home, clock=FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC)), environ={})
    rt.home.create_scope(SCOPE)
    t0 = time.perf_counter()
    plan = generate(args.n, rng)
    load(rt, SCOPE, plan)
    names = [name for _, name, _, _ in plan]
    print(f"N = {args.n:,} entities, generated in {time.perf_counter() - t0:.1f} s")
    index_for(rt.home.scope_db(SCOPE)).warm()
    queries = _queries(names, rng, args.queries)
    resolve_under_writes(rt, str(home), queries, args.seconds)
    catch_up_cost(rt)
    writers(str(home), args.writes)
    rt.close()
    shutil.rmtree(home)


if __name__ == "__main__":
    main()
