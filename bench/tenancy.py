"""What a schema's role costs a checkout (issue 20 item 8): a pooled connection that last
served another schema is put on this one with `SET search_path` (no role), with `SET ROLE`
and `SET search_path` as one script, or with one `set_config` statement for both (what a
checkout sends now: it can go in a write's pipeline); then one read. All on one connection, in
alternating rounds, so the machine's load falls on all alike.

    .venv/bin/python -m bench.tenancy [--n 2000] [--url postgresql://postgres@127.0.0.1:5432/postgres]

It creates a database of its own with two scopes on that server and drops it afterwards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from bench.common import print_table, throwaway_database  # noqa: E402
from groundnote.runtime import open_runtime  # noqa: E402
from groundnote.store.postgres import close_pools  # noqa: E402


def _median_ms(samples: list[float]) -> float:
    return sorted(samples)[len(samples) // 2] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with throwaway_database(args.url) as target:
        with tempfile.TemporaryDirectory() as folder:
            runtime = open_runtime(Path(folder), environ={}, database_url=target)
            for name in ("alpha", "beta"):
                runtime.home.create_scope(name)
            runtime.close()
        close_pools(target)
        ways = {
            "search_path only (before)": lambda s: f"SET search_path TO {s}, public",
            "SET ROLE + search_path, one round trip": lambda s: (
                f"SET ROLE gn_{s}; SET search_path TO {s}, public"
            ),
            "set_config role + search_path (now)": lambda s: (
                f"SELECT set_config('role', 'gn_{s}', false), "
                f"set_config('search_path', '{s}, public', false)"
            ),
        }
        times: dict[str, list[float]] = {way: [] for way in ways}
        reads: dict[str, list[float]] = {way: [] for way in ways}
        with psycopg.connect(target, autocommit=True) as conn:
            for i in range(args.n):
                schema = ("scope_alpha", "scope_beta")[i % 2]
                for way, statement in ways.items():
                    conn.execute("RESET ROLE")
                    start = time.perf_counter()
                    conn.execute(statement(schema))  # type: ignore[no-untyped-call]
                    switched = time.perf_counter()
                    conn.execute("SELECT scope FROM meta").fetchone()
                    times[way].append(switched - start)
                    reads[way].append(time.perf_counter() - start)
        print_table(
            f"a checkout moving to another schema, median of {args.n} each",
            ["way", "switch ms", "switch + one read ms"],
            [
                [way, f"{_median_ms(times[way]):.3f}", f"{_median_ms(reads[way]):.3f}"]
                for way in ways
            ],
        )


if __name__ == "__main__":
    main()
