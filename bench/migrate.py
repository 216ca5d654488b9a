"""Benchmark of `groundnote migrate` (issue 20 item 7): rows per second moving a SQLite home
of N entities (two versions each, a chain of N - 1 links: 4·N - 1 truth rows, plus the
closure and full text the target rebuilds) into an empty PostgreSQL database, verification
(row counts of both sides, `check`) included.

    .venv/bin/python -m bench.migrate [--n 10000] [--url postgresql://postgres@127.0.0.1:5432/postgres]

The SQLite home is filled by importing bench/transfer.py's `synthetic_export`; beside the
migrate it times that import (SQLite into SQLite, the same engine) and the same import into a
scope of the migrated PostgreSQL home, for the ratio of the two backends. It creates a
database of its own on that server and drops it afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from bench.common import print_table, throwaway_database  # noqa: E402
from bench.transfer import synthetic_export  # noqa: E402
from groundnote.runtime import MIGRATE_SPEC, SCOPE_TRANSFER, open_runtime  # noqa: E402
from groundnote.store.migrate import migrate_home  # noqa: E402
from groundnote.store.transfer import import_lines  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gn-bench-migrate-"))
    try:
        with throwaway_database(args.url) as target:
            _run(args.n, work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(n: int, work: Path, target: str) -> None:
    runtime = open_runtime(work / "home", environ={})
    runtime.home.create_scope("bench")
    start = time.perf_counter()
    with runtime.home.scope_db("bench").write() as conn:
        import_lines(conn, SCOPE_TRANSFER, "bench", synthetic_export("bench", n))
    filled = time.perf_counter() - start
    report = migrate_home(runtime.home, target, MIGRATE_SPEC)
    runtime.close()
    assert not report.problems, report.problems
    moved = open_runtime(work / "home", environ={}, database_url=target)
    moved.home.create_scope("copy")
    start = time.perf_counter()
    with moved.home.scope_db("copy").write() as conn:
        import_lines(conn, SCOPE_TRANSFER, "copy", synthetic_export("copy", n))
    imported = time.perf_counter() - start
    moved.close()
    truth = 4 * n - 1
    print_table(
        f"migrate of a SQLite home of {n:,} entities ({report.rows:,} rows copied)",
        ["step", "seconds", "rows/s"],
        [
            ["import into SQLite (same rows)", f"{filled:.1f}", f"{truth / filled:,.0f}"],
            ["import into PostgreSQL (same rows)", f"{imported:.1f}", f"{truth / imported:,.0f}"],
            ["  PostgreSQL / SQLite", f"{imported / filled:.2f}", ""],
            ["migrate into PostgreSQL", f"{report.seconds:.1f}", f"{report.rows / report.seconds:,.0f}"],
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
