"""Benchmark of export and import (issue 17): rows per second at N entities, each with two
versions and a link (3·N rows of the graph), and the import of a memory.jsonl of M entities.

    .venv/bin/python -m bench.transfer                     # N = 100,000, M = 10,000
    .venv/bin/python -m bench.transfer --n 20000 --m 2000

The scope export is written by `synthetic_export`: the rows an export of such a scope holds,
in its order (a tree ten wide, every entity created and renamed, a chain of proposed links),
so the figures time only export and import, in process, with what `groundnote import scope`
and `export scope` run (one transaction, closure and full-text rebuilt at its end); the
export of the import must be the file's bytes again. The memory.jsonl goes through what
`groundnote import memory-jsonl --apply` runs: the capabilities, one call at a time
(resolve, create, note, link), as an agent's calls would.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from groundnote.auth import LOCAL_OPERATOR  # noqa: E402
from groundnote.graph.peers import DEFAULT_TYPES, read_memory_jsonl  # noqa: E402
from groundnote.runtime import SCOPE_TRANSFER, Runtime, open_runtime  # noqa: E402
from groundnote.store.transfer import dump_line, export_lines, import_lines  # noqa: E402
from groundnote.surfaces.cli.peer_import import run_import  # noqa: E402

AT = "2026-11-30T09:00:00.000Z"
LATER = "2026-11-30T09:05:00.000Z"


def _version(scope: str, i: int, version: int) -> dict[str, object]:
    return {
        "id": f"{scope}-e{i:04d}",
        "version": version,
        "type": "organisation",
        "name": f"Organisation {i}" + (" neu" if version == 2 else ""),
        "aliases": "[]",
        "parent_id": f"{scope}-e{i // 10:04d}" if i >= 10 else None,
        "status": "unconfirmed",
        "valid_from": "2026-11-30",
        "valid_to": None,
        "evidence": None,
        "change": "create" if version == 1 else "update",
        "channel": "mcp",
        "changed_by": "grant:bench",
        "changed_at": AT if version == 1 else LATER,
        "reason": "generated",
    }


def synthetic_export(scope: str, n: int) -> Iterator[str]:
    """The lines of an export of a scope holding n entities (two versions each) and n - 1
    links, exactly as `export` writes them."""
    counts = {t.name: 0 for t in SCOPE_TRANSFER.tables}
    counts.update(entity=n, entity_version=2 * n, link=n - 1)
    yield dump_line(
        {"format": SCOPE_TRANSFER.format, "version": SCOPE_TRANSFER.version, "scope": scope,
         "counts": counts}
    )  # fmt: skip
    for i in range(1, n + 1):
        row = {"seq": i, "id": f"{scope}-e{i:04d}", "scope": scope, "created_at": AT,
               "created_by": "agent"}  # fmt: skip
        yield dump_line({"table": "entity", "row": row})
    for i in range(1, n):
        row = {
            "seq": i, "id": f"{scope}-l{i:04d}", "from_ref": f"entity/{scope}-e{i:04d}",
            "to_ref": f"entity/{scope}-e{i + 1:04d}", "type": "same_as", "origin": "proposed",
            "confidence": 0.5, "reason": "generated", "evidence": None, "valid_from": AT,
            "valid_to": None, "created_at": AT, "created_by": "grant:bench",
        }  # fmt: skip
        yield dump_line({"table": "link", "row": row})
    for i in range(1, n + 1):
        for version in (1, 2):
            yield dump_line({"table": "entity_version", "row": _version(scope, i, version)})


def memory_jsonl(m: int) -> Iterator[str]:
    """A memory.jsonl as the MCP memory server writes it: m entities, one observation each,
    and a relation from each to the one before."""
    for i in range(m):
        yield json.dumps(
            {"type": "entity", "name": f"Kunde {i:05d} Nord", "entityType": "organization",
             "observations": [f"Bestellt Lieferung {i}"]}, ensure_ascii=False
        )  # fmt: skip
    for i in range(1, m):
        yield json.dumps(
            {"type": "relation", "from": f"Kunde {i:05d} Nord", "to": f"Kunde {i - 1:05d} Nord",
             "relationType": "partner_of"}, ensure_ascii=False
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--m", type=int, default=10_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gn-bench-transfer-"))
    try:
        runtime = open_runtime(work / "home", environ={})
        runtime.home.create_scope("bench")
        runtime.home.create_scope("peer")
        file = work / "scope.jsonl"
        with open(file, "w", encoding="utf-8") as out:
            rows = sum(1 for line in synthetic_export("bench", args.n) if out.write(line + "\n"))
        rows -= 1  # the header
        db = runtime.home.scope_db("bench")
        start = time.perf_counter()
        with open(file, encoding="utf-8") as lines, db.write() as conn:
            import_lines(conn, SCOPE_TRANSFER, "bench", lines)
        imported = time.perf_counter() - start
        again = work / "again.jsonl"
        start = time.perf_counter()
        with db.read() as conn, open(again, "w", encoding="utf-8") as out:
            conn.execute("BEGIN")
            for line in export_lines(conn, SCOPE_TRANSFER, "bench"):
                out.write(line + "\n")
            conn.execute("COMMIT")
        exported = time.perf_counter() - start
        assert again.read_bytes() == file.read_bytes(), "export of the import differs"

        peer = work / "memory.jsonl"
        peer.write_text("".join(line + "\n" for line in memory_jsonl(args.m)), "utf-8")
        invoke = _operator(runtime)
        start = time.perf_counter()
        summary = run_import(
            read_memory_jsonl(peer, "bench"), invoke, "peer", source="memory.jsonl",
            types=DEFAULT_TYPES, known_types=runtime.config.graph.entity_types, apply=True,
        )  # fmt: skip
        peer_s = time.perf_counter() - start
        runtime.close()
        size = file.stat().st_size / 1e6
        print(f"scope: {args.n:,} entities, {2 * args.n:,} versions, {args.n - 1:,} links")
        print(f"  file: {rows:,} rows, {size:.1f} MB; the export of the import is the same bytes")
        print(
            f"  import: {imported:6.1f} s  {rows / imported:9,.0f} rows/s (closure, FTS included)"
        )
        print(f"  export: {exported:6.1f} s  {rows / exported:9,.0f} rows/s")
        print(f"  import / export: {imported / exported:.1f}")
        print(
            f"memory.jsonl: {args.m:,} entities, {args.m - 1:,} relations: {peer_s:.1f} s, "
            f"{args.m / peer_s:,.0f} entities/s; created {len(summary.created):,}, "
            f"duplicates {len(summary.duplicates):,}, links {summary.linked:,} (each entity "
            "resolved and created, its note stored and linked, one capability call each)"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _operator(runtime: Runtime) -> Callable[..., dict[str, Any]]:
    def invoke(name: str, /, **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(name)
        return runtime.invoke(cap, raw, principal=LOCAL_OPERATOR, channel="cli").model_dump(
            mode="json"
        )

    return invoke


if __name__ == "__main__":
    main()
