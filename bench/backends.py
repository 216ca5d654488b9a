"""Both store backends side by side (issue 20): the same calls on SQLite files and on PostgreSQL.

    .venv/bin/python bench/backends.py                              # the machine's server
    .venv/bin/python bench/backends.py --server postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/backends.py --n 500

On the server a throwaway database (collation C) is made and dropped at the end. Measured
through the registry, as every surface calls, one transaction per call with every check on:
entity_create per second (each under its own parent, so the tree grows), resolve p50/p95 on
what was created, and a read of the tree. Printed with the ratio PostgreSQL / SQLite.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from bench.common import Timing, print_table, time_calls  # noqa: E402
from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.domain.clock import FixedClock  # noqa: E402
from groundnote.runtime import Runtime, open_runtime  # noqa: E402
from groundnote.store.postgres import close_pools  # noqa: E402

SCOPE = "bench"


def _open(folder: Path, url: str | None) -> tuple[Runtime, Any]:
    clock = FixedClock(datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC))
    rt = open_runtime(folder, clock=clock, environ={}, database_url=url)
    rt.home.create_scope(SCOPE, approval_mode="auto")
    _, token = create_grant(
        rt.home.instance,
        "bench",
        rights={SCOPE: Right.PROPOSE},
        channels=["api"],
        org="local",
        now=clock.instant(),
    )
    principal = rt.authenticate(token)
    return rt, principal


def _measure(rt: Runtime, principal: Any, n: int) -> dict[str, Timing]:
    registry = rt.registry

    def call(capability: str, /, **raw: Any) -> dict[str, Any]:
        out = rt.invoke(registry.get(capability), raw, principal=principal, channel="api")
        return out.model_dump(mode="json")

    top = call("graph.entity_create", scope=SCOPE, name="Bench Holding GmbH", type="organisation")
    parent = top["entity"]["id"]
    counter = iter(range(1, 10**9))

    def create() -> None:
        k = next(counter)
        call(
            "graph.entity_create",
            scope=SCOPE,
            name=f"Abteilung {k:05d} Nord",
            type="department",
            parent_id=parent,
        )

    created = time_calls(create, n, warmup=10)
    queries = iter([f"Abteilung {k:05d} Nord" for k in range(1, n + 1)] * 3)
    resolve = time_calls(
        lambda: call("graph.entity_resolve", scope=SCOPE, q=next(queries)), min(n, 300), warmup=5
    )
    tree = time_calls(lambda: call("graph.entity_tree", scope=SCOPE, id=parent), 30, warmup=3)
    return {"entity_create": created, "resolve": resolve, "tree": tree}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(args.server, autocommit=True) as admin:
        admin.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' "  # type: ignore[arg-type]
            "LC_COLLATE 'C' LC_CTYPE 'C'"
        )
    url = args.server.rsplit("/", 1)[0] + "/" + name
    results: dict[str, dict[str, Timing]] = {}
    try:
        for label, database in (("SQLite", None), ("PostgreSQL", url)):
            with tempfile.TemporaryDirectory() as folder:
                rt, principal = _open(Path(folder) / "home", database)
                try:
                    results[label] = _measure(rt, principal, args.n)
                finally:
                    rt.close()
    finally:
        close_pools(url)
        with psycopg.connect(args.server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
    sqlite, pg = results["SQLite"], results["PostgreSQL"]
    rows = [
        ["entity_create /s", sqlite["entity_create"].per_second, pg["entity_create"].per_second],
        ["entity_create p95 ms", sqlite["entity_create"].p95, pg["entity_create"].p95],
        ["resolve p50 ms", sqlite["resolve"].p50, pg["resolve"].p50],
        ["resolve p95 ms", sqlite["resolve"].p95, pg["resolve"].p95],
        ["tree p95 ms", sqlite["tree"].p95, pg["tree"].p95],
    ]
    print_table(
        f"Both backends, {args.n} creates through the registry (one transaction each)",
        ["measure", "SQLite", "PostgreSQL", "PG/SQLite"],
        [[*r, r[2] / r[1] if r[1] else float("nan")] for r in rows],
    )


if __name__ == "__main__":
    main()
