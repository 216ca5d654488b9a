"""Both store backends side by side (issue 20): the same calls on SQLite files and on PostgreSQL,
one run, one machine, one table.

    .venv/bin/python bench/backends.py                              # the machine's server
    .venv/bin/python bench/backends.py --server postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/backends.py --n 300 --entities 100000 --texts 100000

On the server a throwaway database (collation C) is made and dropped at the end. Every figure
is measured through the registry, as every surface calls, one transaction per call with every
check on, on a fresh home per backend:

* entity_create per second, each under one parent (so the tree grows), in an empty scope;
* resolve p50/p95 at `--entities` entities, loaded in bulk through what `groundnote import`
  runs (bench/transfer.py's export of a tree ten wide, two versions each), queried by the
  current names of random entities; entity_tree and entity_path p95 on that tree;
* search p95 over `--texts` rules and as many sources (bench/core.py's generator, written
  through the insert functions), 300 queries of one to three words, compact; full text only
  (`search.semantic` off: the hybrid tier is bench/semantic.py's);
* conceptLink_write (impulses, with its audit) per second;
* HTTP overhead: entity_resolve through `groundnote serve` on loopback against the same call
  in process, alternated, p50 difference; and the serve process's peak resident memory
  (VmHWM) after it answered resolves and searches over HTTP (so it holds the resolve index of
  the loaded scope).

Printed with the ratio PostgreSQL / SQLite.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.common import Timing, print_table, throwaway_database, time_calls  # noqa: E402
from bench.core import WORDS  # noqa: E402
from bench.core import generate as generate_texts  # noqa: E402
from bench.transfer import synthetic_export  # noqa: E402
from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.config import CONFIG_FILE  # noqa: E402
from groundnote.domain.clock import FixedClock  # noqa: E402
from groundnote.impulses.writes import WRITE_OPS  # noqa: E402
from groundnote.runtime import SCOPE_TRANSFER, Runtime, open_runtime  # noqa: E402
from groundnote.store.transfer import import_lines  # noqa: E402

SCOPE, BIG, TEXTS = "bench", "big", "docs"


@dataclass
class Figures:
    timings: dict[str, Timing] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)


def _open(folder: Path, url: str | None) -> tuple[Runtime, Any, str]:
    clock = FixedClock(datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC))
    # Full-text search, as #20's figures are (the semantic tier is bench/semantic.py's; left on,
    # the first search would embed every generated text with the local model).
    folder.mkdir(parents=True)
    (folder / CONFIG_FILE).write_text(json.dumps({"search": {"semantic": "off"}}) + "\n")
    rt = open_runtime(folder, clock=clock, environ={}, database_url=url)
    for scope in (SCOPE, BIG, TEXTS):
        rt.home.create_scope(scope, approval_mode="auto")
    _, token = create_grant(
        rt.home.instance, "bench", rights={"*": Right.PROPOSE}, channels=["api"], org="local",
        now=clock.instant(),
    )  # fmt: skip
    return rt, rt.authenticate(token), token


def _caller(rt: Runtime, principal: Any) -> Callable[..., dict[str, Any]]:
    def call(capability: str, /, **raw: Any) -> dict[str, Any]:
        out = rt.invoke(rt.registry.get(capability), raw, principal=principal, channel="api")
        dumped: dict[str, Any] = out.model_dump(mode="json")
        return dumped

    return call


def _creates(call: Callable[..., dict[str, Any]], n: int) -> Timing:
    top = call("graph.entity_create", scope=SCOPE, name="Bench Holding GmbH", type="organisation")
    parent = top["entity"]["id"]
    counter = iter(range(1, 10**9))

    def create() -> None:
        k = next(counter)
        call("graph.entity_create", scope=SCOPE, name=f"Abteilung {k:05d} Nord",
             type="department", parent_id=parent)  # fmt: skip

    return time_calls(create, n, warmup=10)


def _graph(rt: Runtime, call: Callable[..., dict[str, Any]], n: int, out: Figures) -> None:
    start = time.perf_counter()
    with rt.home.scope_db(BIG).write() as conn:
        import_lines(conn, SCOPE_TRANSFER, BIG, synthetic_export(BIG, n))
    rt.home.scope_db(BIG).analyze()  # as `groundnote import` does after its commit
    out.values["load entities s"] = time.perf_counter() - start
    rng = random.Random(20)
    names = (f"Organisation {rng.randint(1, n)} neu" for _ in iter(int, 1))
    out.timings["resolve"] = time_calls(
        lambda: call("graph.entity_resolve", scope=BIG, q=next(names)), 300, warmup=5
    )
    # a tree ten wide: e0001..e0009 sit at the top, e(10·i..10·i+9) under e(i)
    inner = (f"{BIG}-e{rng.randint(1, max(1, n // 10)):04d}" for _ in iter(int, 1))
    out.timings["tree"] = time_calls(
        lambda: call("graph.entity_tree", scope=BIG, id=next(inner)), 200, warmup=5
    )
    leaves = (f"{BIG}-e{rng.randint(n // 2, n):04d}" for _ in iter(int, 1))
    out.timings["path"] = time_calls(
        lambda: call("graph.entity_path", scope=BIG, id=next(leaves)), 200, warmup=5
    )


def _search(rt: Runtime, call: Callable[..., dict[str, Any]], n: int, out: Figures) -> None:
    rng = random.Random(7)
    out.values["load texts s"] = generate_texts(rt, TEXTS, n, rng)
    # Texts written one by one are analysed by autovacuum as they arrive; loaded in one go,
    # the statistics are refreshed as an import refreshes them, before the first search.
    rt.home.scope_db(TEXTS).analyze()
    queries = iter([" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(400)])
    out.timings["search"] = time_calls(
        lambda: call("core.search", scope=TEXTS, query=next(queries), compact=True), 300,
        warmup=20,
    )  # fmt: skip


def _concept_links(rt: Runtime, principal: Any, n: int, out: Figures) -> None:
    upsert = rt.registry.by_shape(WRITE_OPS["conceptSignatureUpsert_write"].shape)
    link = rt.registry.by_shape(WRITE_OPS["conceptLink_write"].shape)
    assert upsert is not None and link is not None
    ids = []
    for i in range(100):
        raw = {"pointer_type": "bench", "shape": f"s{i}"}
        answer = rt.invoke(upsert, raw, principal=principal, channel="api").model_dump()
        ids.append(answer["content"]["id"])
    rng = random.Random(3)

    def write() -> None:
        a, b = rng.sample(ids, 2)
        data = {"from_concept_id": a, "to_concept_id": b, "edge_type": "co_occurs",
                "weight": round(rng.random(), 3)}  # fmt: skip
        rt.invoke(link, {"linkData": data}, principal=principal, channel="api")

    out.timings["conceptLink_write"] = time_calls(write, n, warmup=20)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _http(
    rt: Runtime, url: str | None, token: str, call: Callable[..., dict[str, Any]], n: int,
    out: Figures,
) -> None:  # fmt: skip
    home = rt.home.path
    port = _free_port()
    command = [sys.executable, "-m", "groundnote", "--home", str(home)]
    if url is not None:
        command += ["--database-url", url]
    command += ["serve", "--port", str(port)]
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(5)
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{base}/openapi.json", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise
                    time.sleep(0.1)
            with httpx.Client(
                base_url=base, headers={"Authorization": f"Bearer {token}"}
            ) as client:
                resolve = rt.registry.get("graph.entity_resolve")

                def over_http() -> None:
                    raw = {"scope": BIG, "q": f"Organisation {rng.randint(1, n)} neu"}
                    _http_call(client, resolve, raw)

                def direct() -> None:
                    call(
                        "graph.entity_resolve", scope=BIG, q=f"Organisation {rng.randint(1, n)} neu"
                    )

                http_t, direct_t = _alternated(over_http, direct, 300)
                out.timings["resolve http"], out.timings["resolve direct"] = http_t, direct_t
                search = rt.registry.get("core.search")
                for word in WORDS[:50]:
                    _http_call(client, search, {"scope": TEXTS, "query": word, "compact": True})
            out.values["serve peak RSS MB"] = _peak_rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)


def _http_call(client: httpx.Client, cap: Any, raw: dict[str, Any]) -> None:
    """One call over the capability's own route (as bench/transports.py calls it)."""
    path = cap.http.path.format(**raw)
    rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.http.path}
    if cap.http.method == "GET":
        client.get(path, params=rest).raise_for_status()
    else:
        client.request(cap.http.method, path, json=rest).raise_for_status()


def _alternated(
    first: Callable[[], object], second: Callable[[], object], n: int
) -> tuple[Timing, Timing]:
    for _ in range(20):
        first()
        second()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(n):
        for fn, into in ((first, samples[0]), (second, samples[1])):
            start = time.perf_counter()
            fn()
            into.append((time.perf_counter() - start) * 1000)
    return Timing(samples[0]), Timing(samples[1])


def _measure(home: Path, url: str | None, args: argparse.Namespace) -> Figures:
    out = Figures()
    rt, principal, token = _open(home, url)
    try:
        call = _caller(rt, principal)
        out.timings["entity_create"] = _creates(call, args.n)
        _graph(rt, call, args.entities, out)
        _search(rt, call, args.texts, out)
        _concept_links(rt, principal, args.n, out)
        _http(rt, url, token, call, args.entities, out)
    finally:
        rt.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--n", type=int, default=300, help="creates and concept links timed")
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--texts", type=int, default=100_000, help="rules, and as many sources")
    args = parser.parse_args()
    results: dict[str, Figures] = {}
    with throwaway_database(args.server) as url:
        for label, database in (("SQLite", None), ("PostgreSQL", url)):
            with tempfile.TemporaryDirectory() as folder:
                results[label] = _measure(Path(folder) / "home", database, args)
    lite, pg = results["SQLite"], results["PostgreSQL"]

    def timing(label: str, key: str, pick: Callable[[Timing], float]) -> list[Any]:
        return [label, pick(lite.timings[key]), pick(pg.timings[key])]

    def overhead(f: Figures) -> float:
        return f.timings["resolve http"].p50 - f.timings["resolve direct"].p50

    rows = [
        timing("entity_create /s (every check)", "entity_create", lambda t: t.per_second),
        timing("entity_create p95 ms", "entity_create", lambda t: t.p95),
        timing(f"resolve p50 ms at {args.entities:,}", "resolve", lambda t: t.p50),
        timing(f"resolve p95 ms at {args.entities:,}", "resolve", lambda t: t.p95),
        timing("entity_tree p95 ms", "tree", lambda t: t.p95),
        timing("entity_path p95 ms", "path", lambda t: t.p95),
        timing(f"search p50 ms at {args.texts:,} + {args.texts:,}", "search", lambda t: t.p50),
        timing(f"search p95 ms at {args.texts:,} + {args.texts:,}", "search", lambda t: t.p95),
        timing("conceptLink_write /s", "conceptLink_write", lambda t: t.per_second),
        ["HTTP overhead p50 ms (resolve)", overhead(lite), overhead(pg)],
        ["serve peak RSS MB", lite.values["serve peak RSS MB"], pg.values["serve peak RSS MB"]],
        [
            "bulk load of the entities s",
            lite.values["load entities s"],
            pg.values["load entities s"],
        ],
        ["bulk load of the texts s", lite.values["load texts s"], pg.values["load texts s"]],
    ]
    print_table(
        f"Both backends, one run: {args.n} creates, {args.entities:,} entities, {args.texts:,} "
        "rules + sources, through the registry (one transaction per call)",
        ["measure", "SQLite", "PostgreSQL", "PG/SQLite"],
        [[*r, r[2] / r[1] if r[1] else float("nan")] for r in rows],
    )


if __name__ == "__main__":
    main()
