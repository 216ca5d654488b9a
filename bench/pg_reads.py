"""Where a read's time goes on PostgreSQL (issue 20): statements per call, and their cost.

For `core.search`, `graph.entity_tree` and `graph.entity_path` on a loaded throwaway database
(bench/backends.py's data: a tree ten wide of `--entities` entities, `--texts` rules and as
many sources), each call through the registry as every surface calls, this prints

* how many statements one call sends (counted on the client, every execute and executemany);
* the client time per call spent waiting on those statements, and the rest (Python);
* the statements by shape (numbers and lists of marks folded), with count per call and
  mean client ms, the costliest first.

    .venv/bin/python -m bench.pg_reads [--entities 5000] [--texts 5000] [--calls 100]
        [--server postgresql://postgres@127.0.0.1:5432/postgres] [--analyze]

`--analyze` runs ANALYZE after the bulk loads (what autovacuum does a minute later), to see
what the plans cost with statistics. The database is dropped at the end.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.backends import BIG, SCOPE_TRANSFER, TEXTS, WORDS, _caller, _open
from bench.common import print_table, throwaway_database
from bench.core import generate as generate_texts
from bench.transfer import synthetic_export
from groundnote.store import postgres
from groundnote.store.transfer import import_lines

_NUMBERS = re.compile(r"\b\d+\b")
_MARKS = re.compile(r"(%\(s\d+\)s|%s|\?|:\w+)(\s*,\s*(%\(s\d+\)s|%s|\?|:\w+))+")


class _Trace:
    """Every statement a PgConnection sends while `on`, with its client-side duration."""

    def __init__(self) -> None:
        self.on = False
        self.calls: list[list[tuple[str, float]]] = []

    @contextmanager
    def call(self) -> Iterator[None]:
        self.calls.append([])
        self.on = True
        try:
            yield
        finally:
            self.on = False

    def install(self) -> None:
        trace = self
        for name in ("execute", "executemany"):
            original = getattr(postgres.PgConnection, name)

            def wrapped(
                conn: Any, sql: str, *args: Any, _original: Callable[..., Any] = original
            ) -> Any:
                if not trace.on:
                    return _original(conn, sql, *args)
                start = time.perf_counter()
                try:
                    return _original(conn, sql, *args)
                finally:
                    shape = _MARKS.sub("…", _NUMBERS.sub("N", " ".join(sql.split())))
                    trace.calls[-1].append((shape, (time.perf_counter() - start) * 1000))

            setattr(postgres.PgConnection, name, wrapped)


def _report(label: str, trace: _Trace, wall: list[float]) -> None:
    calls = trace.calls
    counts = [len(c) for c in calls]
    sql_ms = [sum(ms for _, ms in c) for c in calls]
    print(
        f"\n{label}: {len(calls)} calls, statements per call mean {statistics.fmean(counts):.1f} "
        f"(min {min(counts)}, max {max(counts)}); wall ms p50 {statistics.median(wall):.2f} "
        f"p95 {sorted(wall)[round(0.95 * (len(wall) - 1))]:.2f}, "
        f"waiting on statements p50 {statistics.median(sql_ms):.2f}"
    )
    by_shape: dict[str, list[float]] = defaultdict(list)
    for c in calls:
        for shape, ms in c:
            by_shape[shape].append(ms)
    rows = sorted(by_shape.items(), key=lambda kv: -sum(kv[1]))[:15]
    print_table(
        f"{label}: statements by shape, costliest first",
        ["per call", "mean ms", "statement"],
        [[len(v) / len(calls), statistics.fmean(v), k[:150]] for k, v in rows],
    )


def _measure(label: str, fn: Callable[[int], object], calls: int, trace: _Trace) -> None:
    for i in range(10):
        fn(i)
    trace.calls = []
    wall = []
    for i in range(calls):
        start = time.perf_counter()
        with trace.call():
            fn(i)
        wall.append((time.perf_counter() - start) * 1000)
    _report(label, trace, wall)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--entities", type=int, default=5000)
    parser.add_argument("--texts", type=int, default=5000)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--analyze", action="store_true")
    args = parser.parse_args()
    trace = _Trace()
    trace.install()
    with throwaway_database(args.server) as url, tempfile.TemporaryDirectory() as folder:
        rt, principal, _ = _open(Path(folder) / "home", url)
        try:
            call = _caller(rt, principal)
            with rt.home.scope_db(BIG).write() as conn:
                import_lines(conn, SCOPE_TRANSFER, BIG, synthetic_export(BIG, args.entities))
            rng = random.Random(7)
            n = args.entities

            def analyzed(scope: str) -> None:
                if args.analyze:
                    rt.home.scope_db(scope).analyze()  # as `groundnote import` does

            # as bench/backends.py runs them: the tree right after its bulk load
            analyzed(BIG)
            _measure(
                "graph.entity_tree",
                lambda i: call(
                    "graph.entity_tree",
                    scope=BIG,
                    id=f"{BIG}-e{rng.randint(1, max(1, n // 10)):04d}",
                ),
                args.calls,
                trace,
            )
            _measure(
                "graph.entity_path",
                lambda i: call(
                    "graph.entity_path", scope=BIG, id=f"{BIG}-e{rng.randint(n // 2, n):04d}"
                ),
                args.calls,
                trace,
            )
            generate_texts(rt, TEXTS, args.texts, rng)
            analyzed(TEXTS)
            queries = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(400)]
            _measure(
                "core.search",
                lambda i: call("core.search", scope=TEXTS, query=queries[i % 400], compact=True),
                args.calls,
                trace,
            )
        finally:
            rt.close()


if __name__ == "__main__":
    sys.exit(main())
