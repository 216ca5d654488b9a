"""Every capability whose policy says `benchmark: required`, per call: directly, over HTTP
(uvicorn on loopback, a separate process) and over MCP (the official client over streamable
HTTP and over stdio). Prints calls per second, p50, p95 and the overhead over direct at p50
(targets: HTTP ≤ 2 ms, MCP ≤ 3 ms). Each capability's case is set up in `CASES`; a required
capability without a case stops the run, so none is silently left out. A case gives a fresh
input per call (`Inputs`), so a write such as entity_create never repeats itself.

With `--listing` it prints only what a host sees before the first call (bench/mcp_listing.py):
the size of tools/list per grant kind and stdio start to `initialize`.

With `--direct` it times only the direct call, beside the handler alone on the same input
(validated beforehand, its context built by hand), and prints the registry's own cost per
call: the pipeline (credentials, channel, validation, tenancy and right) and the log row.

    .venv/bin/python -m bench.transports [--n 500] [--direct] [--listing] [--only NAME,…]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.common import Timing, print_table, time_calls
from bench.context import generate
from bench.mcp_listing import print_listing
from groundnote.auth import LOCAL_OPERATOR, Right, create_grant
from groundnote.capabilities import Capability, Context
from groundnote.runtime import Runtime, open_runtime

TARGETS = {"http": 2.0, "mcp-http": 3.0, "mcp-stdio": 3.0}
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}
RECORD = """---
id: e1-0123456789ab
class: convention
status: candidate
epistemics: decided
date: 2026-09-12
title: Releases are tagged from main
provenance:
  origin: authored
  derived_from: [file:README.md]
---
Tag every release on main.
"""


Inputs = Callable[[], dict[str, Any]]


def _same(raw: dict[str, Any]) -> Inputs:
    return lambda: raw


def _status_case(runtime: Runtime, work: Path) -> Inputs:
    runtime.home.create_scope("demo")
    return _same({"scope": "demo"})


def _record_case(runtime: Runtime, work: Path) -> Inputs:
    repo = work / "checkout"
    (repo / ".ai/repo/knowledge/candidates").mkdir(parents=True)
    (repo / "README.md").write_text("# bench\n")
    (repo / ".ai/repo/knowledge/candidates/e1-0123456789ab.md").write_text(RECORD)
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "bench"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True, env=GIT_ENV)
    runtime.home.create_scope("kb", repo=str(repo))
    return _same({"scope": "kb", "id": "e1-0123456789ab"})


def _search_case(runtime: Runtime, work: Path) -> Inputs:
    runtime.home.create_scope("rules", approval_mode="auto")
    mail = {
        "kind": "mail",
        "id": "mail:<r1@bench.example>",
        "subject": "Rabatte",
        "body": "Rabatte über 10 % nur mit Freigabe der Vertriebsleitung.",
    }
    rule = {
        "statement": "Rabatte über 10 % brauchen die Freigabe der Vertriebsleitung.",
        "evidence": {
            "quote": "Rabatte über 10 % nur mit Freigabe",
            "refs": ["source/mail:<r1@bench.example>"],
        },
        "valid_from": "2026-01-01",
    }
    for name, raw in (("core.store_source", {"source": mail}), ("core.propose_rule", rule)):
        runtime.invoke(
            runtime.registry.get(name),
            {"scope": "rules", **raw},
            principal=LOCAL_OPERATOR,
            channel="cli",
        )
    # compact on every transport, so each answers the same form the direct call does
    return _same({"scope": "rules", "query": "Rabatt Freigabe", "compact": True})


def _graph_scope(runtime: Runtime) -> tuple[str, str]:
    """A small tree in scope `tree`: the top entity, a department below it, and a folder for
    the entities the create case makes (so the tree case keeps answering the same tree)."""
    if "tree" not in runtime.home.scope_names():
        runtime.home.create_scope("tree")
        create = runtime.registry.get("graph.entity_create")
        made = []
        for name, parent in (("Müller & Söhne GmbH", None), ("Vertrieb Nord", 0), ("Projekte", 0)):
            raw = {
                "scope": "tree",
                "type": "organisation" if parent is None else "department",
                "name": name,
                "parent_id": None if parent is None else made[parent],
            }
            out = runtime.invoke(create, raw, principal=LOCAL_OPERATOR, channel="cli")
            made.append(out.model_dump()["entity"]["id"])
    return "tree-e0001", "tree-e0002"


def _resolve_case(runtime: Runtime, work: Path) -> Inputs:
    _graph_scope(runtime)
    return _same({"scope": "tree", "q": "Mueller Soehne"})


def _path_case(runtime: Runtime, work: Path) -> Inputs:
    return _same({"scope": "tree", "id": _graph_scope(runtime)[1]})


def _tree_case(runtime: Runtime, work: Path) -> Inputs:
    return _same({"scope": "tree", "id": _graph_scope(runtime)[0]})


def _move_case(runtime: Runtime, work: Path) -> Inputs:
    top, below = _graph_scope(runtime)
    # To the parent it has: the whole path runs and answers moved: false, writing nothing.
    return _same({"scope": "tree", "id": below, "parent_id": top})


def _create_case(runtime: Runtime, work: Path) -> Inputs:
    _graph_scope(runtime)
    count = itertools.count()
    return lambda: {
        "scope": "tree",
        "type": "project",
        "parent_id": "tree-e0003",  # Projekte
        "force": True,
        "reason": "benchmark",
        "name": f"Vorhaben {next(count)} Nord",
    }


def _context_case(runtime: Runtime, work: Path) -> Inputs:
    """A generated project of 1,000 documents bound to scope `content`; a concept by its id."""
    project = work / "content"
    project.mkdir()
    concepts = generate(project, docs=1000, blocks=20, concepts=400)
    runtime.home.create_scope("content")
    for name, raw in (
        ("context.up", {"path": str(project)}),
        ("context.bind", {"path": str(project), "scope": "content"}),
    ):
        runtime.invoke(runtime.registry.get(name), raw, principal=LOCAL_OPERATOR, channel="cli")
    return _same({"scope": "content", "term": concepts[7], "at": "2026-11-30T00:00:00Z"})


# capability → how its one case is set up (and its input)
CASES: dict[str, Callable[[Runtime, Path], Inputs]] = {
    "core.status": _status_case,
    "core.search": _search_case,
    "knowledge_base.record": _record_case,
    "graph.entity_resolve": _resolve_case,
    "graph.entity_path": _path_case,
    "graph.entity_tree": _tree_case,
    "graph.entity_move": _move_case,
    "graph.entity_create": _create_case,
    "context.search": _context_case,
}


async def _time_mcp(client: Client, tool: str, inputs: Inputs, n: int) -> Timing:
    for _ in range(20):
        await client.call_tool(tool, inputs())
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        result = await client.call_tool(tool, inputs())
        samples.append((time.perf_counter() - start) * 1000)
        assert not result.is_error, result.structured_content
    return Timing(samples)


async def _mcp_http(url: str, token: str, tool: str, inputs: Inputs, n: int) -> Timing:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http_client,
        Client(streamable_http_client(url, http_client=http_client)) as client,
    ):
        return await _time_mcp(client, tool, inputs, n)


async def _mcp_stdio(home: Path, token: str, tool: str, inputs: Inputs, n: int) -> Timing:
    args = ["-m", "groundnote", "--home", str(home), "mcp", "--token", token]
    async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
        return await _time_mcp(client, tool, inputs, n)


def _handler_alone(
    runtime: Runtime, cap: Capability[Any, Any], inputs: Inputs, principal: Any
) -> Callable[[], object]:
    """The handler on a context the registry would have built, without the registry: so that
    direct minus this is what the registry itself costs per call."""
    fields = {
        "home": runtime.home,
        "config": runtime.config,
        "principal": principal,
        "channel": "mcp",
        "capability": cap,
        "input_sha256": "0" * 64,
        "request_id": "bench",
    }
    known = Context.__dataclass_fields__
    if "services" in known:
        fields["services"] = runtime.registry.services
    if "logged_as" in known:
        fields["logged_as"] = cap.name

    def call() -> object:
        raw = inputs()
        ctx = Context(**fields)
        if "scopes" in known:
            ctx.scopes = (raw["scope"],) if "scope" in raw else ()
        return cap.handler(ctx, cap.input.model_validate(raw))

    return call


def _http_call(client: httpx.Client, cap: Capability[Any, Any], raw: dict[str, Any]) -> None:
    assert cap.http is not None
    path = cap.http.path.format(**raw)
    rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.http.path}
    if cap.http.method == "GET":
        client.get(path, params=rest).raise_for_status()
    else:
        client.request(cap.http.method, path, json=rest).raise_for_status()


def _wait_for(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/openapi.json", timeout=1)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


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


def _print_registry_cost(
    runtime: Runtime,
    required: list[Capability[Any, Any]],
    cases: dict[str, Inputs],
    principal: Any,
    n: int,
) -> None:
    rows = []
    for cap in required:
        inputs = cases[cap.name]
        alone_call = _handler_alone(runtime, cap, inputs, principal)

        def direct_call(cap: Capability[Any, Any] = cap, inputs: Inputs = inputs) -> object:
            return runtime.invoke(cap, inputs(), principal=principal, channel="mcp")

        # Alternated call by call, so that drift on a shared machine hits both alike.
        direct, alone = _alternated(direct_call, alone_call, n)
        rows.append([cap.name, direct.p50, alone.p50, direct.p50 - alone.p50, direct.p95])
    print_table(
        f"{n} calls each (ms): the registry's cost per call = direct - handler alone, at p50",
        ["capability", "direct p50", "handler p50", "registry p50", "direct p95"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500, help="calls per transport")
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument(
        "--direct", action="store_true", help="only direct calls, beside the handler alone"
    )
    parser.add_argument(
        "--listing", action="store_true", help="only tools/list sizes and stdio start time"
    )
    parser.add_argument("--only", default="", help="comma-separated capability names")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="gn-bench-"))
    home = work / "home"
    runtime = open_runtime(home, environ={})
    if args.listing:
        print_listing(runtime)
        runtime.close()
        return
    # Capabilities served on the command line only are measured by their subsystem's benchmark.
    required = [
        cap
        for cap in runtime.registry
        if cap.policies.benchmark == "required" and (cap.mcp or cap.http)
    ]
    if args.only:
        required = [cap for cap in required if cap.name in args.only.split(",")]
    missing = [cap.name for cap in required if cap.name not in CASES]
    if missing:
        sys.exit(f"bench.transports has no case for {', '.join(missing)}: add one to CASES")
    cases = {cap.name: CASES[cap.name](runtime, work) for cap in required}
    _, token = create_grant(
        runtime.home.instance,
        "bench",
        rights={"*": Right.PROPOSE},
        channels=["mcp", "api", "cli"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    principal = runtime.authenticate(token)
    if args.direct:
        _print_registry_cost(runtime, required, cases, principal, args.n)
        runtime.close()
        return
    results: dict[str, dict[str, Timing]] = {}
    for cap in required:
        inputs = cases[cap.name]
        results[cap.name] = {
            "direct": time_calls(
                lambda cap=cap, inputs=inputs: runtime.invoke(
                    cap, inputs(), principal=principal, channel="mcp"
                ),
                args.n,
            )
        }

    command = [
        sys.executable,
        "-m",
        "groundnote",
        "--home",
        str(home),
        "serve",
        "--port",
        str(args.port),
    ]
    base = f"http://127.0.0.1:{args.port}"
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        try:
            _wait_for(base)
            with httpx.Client(
                base_url=base, headers={"Authorization": f"Bearer {token}"}
            ) as client:
                for cap in required:
                    inputs = cases[cap.name]
                    if cap.http:
                        results[cap.name]["http"] = time_calls(
                            lambda cap=cap, inputs=inputs: _http_call(client, cap, inputs()), args.n
                        )
            for cap in required:
                if cap.mcp:
                    results[cap.name]["mcp-http"] = asyncio.run(
                        _mcp_http(f"{base}/mcp", token, cap.mcp.tool, cases[cap.name], args.n)
                    )
        finally:
            server.terminate()
    for cap in required:
        if cap.mcp:
            results[cap.name]["mcp-stdio"] = asyncio.run(
                _mcp_stdio(home, token, cap.mcp.tool, cases[cap.name], args.n)
            )

    rows = []
    for name, timings in results.items():
        direct = timings["direct"].p50
        for transport, timing in timings.items():
            overhead = timing.p50 - direct
            target = TARGETS.get(transport)
            verdict = (
                ""
                if target is None
                else ("meets" if overhead <= target else "MISSES") + f" ≤ {target} ms"
            )
            shown = "" if transport == "direct" else f"{overhead:.2f}"
            rows.append(
                [name, transport, timing.per_second, timing.p50, timing.p95, shown, verdict]
            )
    print_table(
        f"{args.n} calls per transport (ms)",
        ["capability", "transport", "calls/s", "p50", "p95", "overhead p50", "target"],
        rows,
    )
    runtime.close()


if __name__ == "__main__":
    main()
