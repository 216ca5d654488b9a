"""Helpers shared by the benchmarks: timing, percentiles, peak RSS, a printed table, a
throwaway PostgreSQL database."""

from __future__ import annotations

import resource
import statistics
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

__all__ = ["Timing", "peak_rss_mb", "print_table", "throwaway_database", "time_calls"]


class Timing:
    def __init__(self, samples_ms: list[float]) -> None:
        self.samples = sorted(samples_ms)

    def pct(self, p: float) -> float:
        index = min(len(self.samples) - 1, max(0, round(p / 100 * (len(self.samples) - 1))))
        return self.samples[index]

    @property
    def p50(self) -> float:
        return self.pct(50)

    @property
    def p95(self) -> float:
        return self.pct(95)

    @property
    def per_second(self) -> float:
        return 1000 / statistics.fmean(self.samples)


def time_calls(fn: Callable[[], object], n: int, warmup: int = 20) -> Timing:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return Timing(samples)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_table(title: str, header: Iterable[str], rows: Iterable[Iterable[object]]) -> None:
    header = list(header)
    body = [[f"{c:.2f}" if isinstance(c, float) else str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in body:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


@contextmanager
def throwaway_database(server: str) -> Iterator[str]:
    """The URL of a new database (collation C, as Groundnote needs) on `server`, under a name
    of its own so that two benchmarks never drop each other's; dropped at the end, after
    this process's pools on it are closed."""
    import psycopg

    from groundnote.store.postgres import close_pools

    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' "  # type: ignore[arg-type]
            "LC_COLLATE 'C' LC_CTYPE 'C'"
        )
    url = server.split("?")[0].rsplit("/", 1)[0] + "/" + name
    try:
        yield url
    finally:
        close_pools(url)
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
