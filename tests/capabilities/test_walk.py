"""The walk: every capability, on every surface it is exposed on, with every kind of caller that
must not get through, against a home full of one organisation's data.

For each capability and surface the walk calls it with

* `no-right`: a grant of the data's organisation holding no right on the capability's tenancy
  (propose on another scope, `hr`; for an organisation-wide capability a grant holding no
  right at all, since any right of a grant is a right in its organisation);
* `read`: a grant holding only read on the scope (`sales:read`), so read in the organisation;
* `other-org`: a grant of another organisation, reading its own scope only;
* `anonymous`: no credentials (on the command line, where no token means the home's own
  operator, an unknown token).

Every command is refused, with the code the caller's shortfall names; a query is refused where
the caller may not read, and where it may answer, the answer holds nothing of the data it may
not see. After each call the row counts of every table in every store unit (the instance, each
scope, the bound content project's store) are what they were, and the operation log has
gained at most the call's own row, recording that outcome.

The table `INPUTS` gives each capability one valid input; a capability added without one fails
`test_every_capability_is_walked`, so nothing escapes the walk by being new.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from click.testing import CliRunner
from mcp import Client

from groundnote.auth import Principal, Right, create_grant
from groundnote.capabilities import Capability
from groundnote.config import Config
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import error_classes
from groundnote.runtime import Runtime, build_registry, open_runtime
from groundnote.surfaces.cli.main import cli
from groundnote.surfaces.http import create_app
from groundnote.surfaces.http.approval import approval_registry
from groundnote.surfaces.mcp.server import build_server
from tests.conftest import home_on_database, mcp_body
from tests.context.project import write_project
from tests.surfaces.conftest import free_port

# one world (a home, its servers, its grants) for every call of the walk
pytestmark = pytest.mark.database_per_module

KINDS = ("no-right", "read", "other-org", "anonymous")
STATUS = {cls.code: cls.status for cls in error_classes()}
# Strings of the organisation's data that no walk input contains: an answer holding one to a
# caller who may not read it leaks.
SECRETS = ("Nordlicht Handels GmbH", "Skonto von zwei Prozent", "acme-secret-concept")
MAIL = "mail:<m1@acme.example>"

ALL = [*build_registry(), *approval_registry()]


def surfaces(cap: Capability[Any, Any]) -> list[str]:
    found = []
    if cap.mcp:
        found.append("mcp")
    if cap.http:
        found.append("approval" if cap.approval else "api")
    if cap.page or (cap.approval and cap.kind == "command"):
        found.append("page")  # a page reads it, or a page's form posts it
    if cap.cli:
        found.append("cli")
    if cap.shape:
        found.append("impulse")
    return found


@dataclass
class World:
    runtime: Runtime
    base: str
    home: Path
    project: Path
    tokens: dict[str, str]
    ids: dict[str, str] = field(default_factory=dict)
    servers: dict[str | None, Any] = field(default_factory=dict)  # one MCP server per caller

    def principal(self, kind: str) -> Principal | None:
        token = self.tokens.get(kind)
        return self.runtime.authenticate(token) if token else None


def _grant(runtime: Runtime, name: str, org: str, rights: dict[str, Right]) -> str:
    _, token = create_grant(
        runtime.home.instance,
        name,
        rights=rights,
        channels=["mcp", "api", "cli"],
        org=org,
        now=runtime.home.clock.instant(),
    )
    return token


def _fill(world: World) -> None:
    """One organisation's data in every subsystem, written by its own operator."""
    runtime = world.runtime
    owner = world.principal("owner")

    def call(capability: str, /, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(capability)
        return runtime.invoke(cap, raw, principal=owner, channel=channel).model_dump(mode="json")

    mail = {
        "kind": "mail",
        "id": MAIL,
        "subject": "Zahlungsbedingungen",
        "sender": "Ines <ines@acme.example>",
        "to": ["vertrieb@acme.example"],
        "sent_at": "2026-10-01T08:00:00.000Z",
        "body": "Ab sofort gilt ein Skonto von zwei Prozent bei Zahlung binnen zehn Tagen.",
    }
    call("core.store_source", scope="sales", source=mail)
    rule = call(
        "core.propose_rule",
        scope="sales",
        statement="Kunden erhalten ein Skonto von zwei Prozent.",
        evidence={"quote": "Skonto von zwei Prozent", "refs": [f"source/{MAIL}"]},
        valid_from="2026-10-01",
    )
    top = call("graph.entity_create", scope="sales", type="organisation", name=SECRETS[0])
    child = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vertrieb Nord",
        parent_id=top["entity"]["id"],
    )
    link = call(
        "graph.link_propose",
        scope="sales",
        from_ref=f"rule/{rule['id']}",
        to_ref=f"entity/{top['entity']['id']}",
        type="concerns",
        confidence=0.9,
        reason="the rule names the customer",
    )
    found = call("core.search", scope="sales", query="Skonto")
    first = call("impulses.concept_create", concept={"name": SECRETS[2], "shape": "lesson"})
    second = call("impulses.concept_create", concept={"name": SECRETS[2] + " 2", "shape": "x"})
    call(
        "impulses.concept_link",
        from_concept_id=first["concept"]["id"],
        to_concept_id=second["concept"]["id"],
        edge_type="co_occurs",
    )
    call("context.up", channel="cli", path=str(world.project))
    call("context.bind", channel="cli", path=str(world.project), scope="sales")
    export = call("core.export", channel="cli", scope="sales")
    world.ids = {
        "rule": rule["id"],
        "top": top["entity"]["id"],
        "child": child["entity"]["id"],
        "link": link["link"]["id"],
        "search": found["search_id"],
        "c1": first["concept"]["id"],
        "c2": second["concept"]["id"],
        "audit": first["audit_impulse_id"],
        "export": export["jsonl"],
    }


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, module_database_url: str | None
) -> Iterator[World]:
    root = tmp_path_factory.mktemp("walk")
    home_on_database(root / "home", module_database_url)
    # The command line reads the checkout and project it stands in: stand in neither.
    here = Path.cwd()
    os.chdir(root)
    clock = FixedClock(datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC))
    runtime = open_runtime(root / "home", clock=clock, environ={}, database_url=module_database_url)
    for name in ("sales", "hr", "globex-hq"):
        runtime.home.create_scope(name)
    project = root / "project"
    write_project(project)
    tokens = {
        "owner": _grant(runtime, "owner", "acme", {"*": Right.DECIDE}),
        "no-right": _grant(runtime, "elsewhere", "acme", {"hr": Right.PROPOSE}),
        "no-right-org": _grant(runtime, "empty", "acme", {}),
        "read": _grant(runtime, "reader", "acme", {"sales": Right.READ}),
        "other-org": _grant(runtime, "globex", "globex", {"globex-hq": Right.READ}),
    }
    # The walk sends every refused credential there is, all from 127.0.0.1: far more a
    # minute than the throttle of failed credentials lets one address send in production.
    runtime.config.server.auth_failures_per_minute = 100_000
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(runtime), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    world = World(runtime, f"http://127.0.0.1:{port}", root / "home", project, tokens)
    _fill(world)
    yield world
    server.should_exit = True
    thread.join(timeout=10)
    runtime.close()
    os.chdir(here)


# -- one valid input per capability ----------------------------------------------------------

Inputs = Callable[[World], dict[str, Any]]


def _same(raw: dict[str, Any]) -> Inputs:
    return lambda w: raw


INPUTS: dict[str, Inputs] = {
    "core.list_scopes": _same({}),
    "core.status": _same({"scope": "sales"}),
    "core.search": _same({"scope": "sales", "query": "Skonto"}),
    "core.read_rule": lambda w: {"scope": "sales", "id": w.ids["rule"]},
    "core.provenance": lambda w: {"scope": "sales", "id": w.ids["rule"]},
    "core.list_rules": _same({"scope": "sales"}),
    "core.list_proposals": _same({"scope": "sales"}),
    "core.list_rejected": _same({"scope": "sales"}),
    "core.propose_rule": _same(
        {
            "scope": "sales",
            "statement": "Lieferungen gehen per Spedition.",
            "evidence": {"quote": "Skonto", "refs": [f"source/{MAIL}"]},
        }
    ),
    "core.rule_retract": lambda w: {"scope": "sales", "id": w.ids["rule"], "reason": "asked"},
    "core.store_source": _same(
        {
            "scope": "sales",
            "source": {
                "kind": "mail",
                "id": "mail:<m2@acme.example>",
                "subject": "Neu",
                "sender": "x@acme.example",
                "sent_at": "2026-10-02T08:00:00.000Z",
                "body": "Neuer Text.",
            },
        }
    ),
    "core.feedback": lambda w: {
        "scope": "sales",
        "search_id": w.ids["search"],
        "ref": f"rule/{w.ids['rule']}",
        "verdict": "wrong",
    },
    "core.export": _same({"scope": "sales"}),
    "core.import": lambda w: {"scope": "sales", "jsonl": w.ids["export"]},
    "graph.entity_resolve": _same({"scope": "sales", "q": "Nordlicht Handels"}),
    "graph.entity_create": _same({"scope": "sales", "type": "organisation", "name": "Neu AG"}),
    "graph.entity_move": lambda w: {"scope": "sales", "id": w.ids["child"], "parent_id": None},
    "graph.entity_update": lambda w: {"scope": "sales", "id": w.ids["top"], "name": "Anders AG"},
    "graph.entity_tree": lambda w: {"scope": "sales", "id": w.ids["top"]},
    "graph.scope_tree": _same({"scope": "sales"}),
    "graph.entity_path": lambda w: {"scope": "sales", "id": w.ids["child"]},
    "graph.link_propose": lambda w: {
        "scope": "sales",
        "from_ref": f"source/{MAIL}",
        "to_ref": f"entity/{w.ids['child']}",
        "type": "concerns",
        "confidence": 0.5,
        "reason": "the mail names it",
    },
    "graph.link_list": lambda w: {"scope": "sales", "ref": f"entity/{w.ids['top']}"},
    "knowledge_base.record": _same({"scope": "sales", "id": "e1-0123456789ab"}),
    "knowledge_base.candidates": _same({"scope": "sales"}),
    "knowledge_base.status": _same({"scope": "sales"}),
    "knowledge_base.validate": _same({"scope": "sales"}),
    "context.up": lambda w: {"path": str(w.project)},
    "context.status": lambda w: {"path": str(w.project)},
    "context.commit": lambda w: {"path": str(w.project)},
    "context.publish": lambda w: {"path": str(w.project)},
    "context.bind": lambda w: {"path": str(w.project), "scope": "sales", "project": "again"},
    "context.unbind": _same({"project": "docs-site", "scope": "sales"}),
    "context.projects": _same({"scope": "sales"}),
    "context.search": _same({"scope": "sales", "term": "email"}),
    "context.occurrences": _same({"scope": "sales", "term": "email"}),
    "impulses.concept_create": _same({"concept": {"name": "neu", "shape": "lesson"}}),
    "impulses.concept_link": lambda w: {
        "from_concept_id": w.ids["c1"],
        "to_concept_id": w.ids["c2"],
        "edge_type": "co_occurs",
    },
    "impulses.concept_upsert_by_signature": _same({"pointer_type": "mail", "shape": "invoice"}),
    "impulses.concept_record_usage": lambda w: {"concept_id": w.ids["c1"], "trace_id": "t-1"},
    "impulses.concept_sequence_record": lambda w: {"concept_ids": [w.ids["c1"], w.ids["c2"]]},
    "impulses.discovery": _same({}),
    "impulses.impulse_read": lambda w: {"id": w.ids["audit"]},
    "impulses.prune": _same({}),
    "impulses.concept": lambda w: {"concept_id": w.ids["c1"]},
    "impulses.relatedConcepts": lambda w: {"concept_id": w.ids["c1"]},
    "impulses.impulseCooccurrenceEdges": _same({}),
    "impulses.conceptUsageStats": lambda w: {"concept_id": w.ids["c1"]},
    "impulses.conceptSequence": _same({}),
    "impulses.concept_write": _same({"source_type": "document", "content": "Mahnwesen\nzwei"}),
    "impulses.concept_create_write": _same({"conceptData": {"name": "n", "shape": "lesson"}}),
    "impulses.conceptLink_write": lambda w: {
        "linkData": {
            "from_concept_id": w.ids["c1"],
            "to_concept_id": w.ids["c2"],
            "edge_type": "co_occurs",
        }
    },
    "impulses.conceptSignatureUpsert_write": _same({"pointer_type": "mail", "shape": "reminder"}),
    "impulses.conceptUsage_write": lambda w: {"usageData": {"concept_id": w.ids["c1"]}},
    "impulses.conceptSequence_write": lambda w: {
        "sequenceData": {"concept_ids": [w.ids["c2"], w.ids["c1"]]}
    },
    "impulses.conceptCreditDecontaminate_write": _same({"dry_run": False}),
    "structure.review": lambda w: {"target": f"entity/{w.ids['top']}@1", "verdict": "confirm"},
    "structure.archive": lambda w: {"id": w.ids["child"], "version": 1},
    "structure.overview": _same({}),
    "structure.pending": _same({"scope": "sales"}),
    "structure.proposals": _same({"scope": "sales"}),
    "structure.rule": lambda w: {"id": w.ids["rule"]},
    "structure.source": _same({"scope": "sales", "id": MAIL}),
    "structure.scope": _same({"scope": "sales"}),
    "structure.tree": _same({"scope": "sales"}),
    "structure.entity": lambda w: {"id": w.ids["top"]},
    "structure.search": _same({"scope": "sales", "q": "frei Haus"}),
    "structure.activity": _same({"scope": "sales"}),
    "decision.rule_decide": lambda w: {"scope": "sales", "id": w.ids["rule"], "verdict": "adopt"},
}


# -- what each caller must get ---------------------------------------------------------------


def expected(cap: Capability[Any, Any], surface: str, kind: str, config: Config) -> str | None:
    """The refusal code the call must get, or None where it may answer (a read it may make)."""
    writes = cap.kind == "command"
    if kind == "anonymous":
        return None if cap.admits_anonymous(config) else "auth-required"
    if surface == "page":
        return "auth-required"  # a page knows persons by their session only
    if surface == "approval":
        return "channel-not-allowed"  # a grant is never a person
    if cap.tenancy.kind in ("fields", "id", "lookup") and kind in ("no-right", "other-org"):
        return "scope-not-allowed"
    if cap.tenancy.kind == "org" and kind == "no-right":
        return "right-missing"
    return "right-missing" if writes else None


# -- the surfaces ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    ok: bool
    code: str | None  # the refusal code the surface reported, when it reports one
    status: int | None
    text: str


def _http(
    world: World, cap: Capability[Any, Any], raw: dict[str, Any], token: str | None
) -> Outcome:
    assert cap.http is not None
    path = cap.http.path.format(**raw)
    rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.http.path}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=world.base, headers=headers) as client:
        if cap.http.method == "GET":
            response = client.get(path, params=rest)
        else:
            response = client.request(cap.http.method, path, json=rest)
    body = response.json()
    return Outcome(
        response.status_code < 400, body.get("error"), response.status_code, response.text
    )


def _page(
    world: World, cap: Capability[Any, Any], raw: dict[str, Any], token: str | None
) -> Outcome:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=world.base, headers=headers, follow_redirects=False) as client:
        if cap.page is not None:
            path = cap.page.path.format(**raw)
            rest = {k: v for k, v in raw.items() if "{" + k + "}" not in cap.page.path}
            response = client.get(path, params=rest)
        else:
            form = {k: str(v) for k, v in raw.items()}
            response = client.post(f"/approval/act/{cap.name}", data=form)
    code = "auth-required" if response.status_code == 401 else None
    return Outcome(response.status_code < 400, code, response.status_code, response.text)


def _impulse(
    world: World, cap: Capability[Any, Any], raw: dict[str, Any], token: str | None
) -> Outcome:
    assert cap.shape is not None
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    pointer = {"type": cap.shape.name, **raw}
    response = httpx.post(
        f"{world.base}/v2/impulses/resolve", json={"pointer": pointer}, headers=headers
    )
    body = response.json()
    code = "auth-required" if body.get("code") == "AUTH_REQUIRED" else None
    return Outcome(bool(body.get("success")), code, response.status_code, response.text)


def _mcp(
    world: World, cap: Capability[Any, Any], raw: dict[str, Any], token: str | None
) -> Outcome:
    assert cap.mcp is not None
    if token not in world.servers:
        principal = world.runtime.authenticate(token) if token else None
        world.servers[token] = build_server(world.runtime, lambda _ctx: principal)
    server = world.servers[token]
    tool = cap.mcp.tool

    async def run() -> Outcome:
        async with Client(server) as client:
            result = await client.call_tool(tool, raw)
        body = mcp_body(result)
        return Outcome(not result.is_error, body.get("error"), None, json.dumps(body))

    return anyio.run(run)


def _cli(
    world: World, cap: Capability[Any, Any], raw: dict[str, Any], token: str | None
) -> Outcome:
    assert cap.cli is not None
    # Without a token the command line is the home's own operator; no credentials is a token
    # that names no grant.
    args = ["--home", str(world.home), "--token", token or "gn_names-no-grant"]
    args += [*cap.cli.path, "--json", json.dumps(raw), "--output", "json"]
    result = CliRunner().invoke(cli, args)
    text = result.stdout if result.exit_code == 0 else result.stderr
    code = None
    if result.exit_code != 0:
        try:
            code = json.loads(text).get("error")
        except json.JSONDecodeError:
            code = None
    return Outcome(result.exit_code == 0, code, None, text)


CALLERS: dict[str, Callable[[World, Capability[Any, Any], dict[str, Any], str | None], Outcome]] = {
    "mcp": _mcp,
    "api": _http,
    "approval": _http,
    "page": _page,
    "cli": _cli,
    "impulse": _impulse,
}


# -- what the store holds ------------------------------------------------------------------------


def _units(world: World) -> list[tuple[str, Any]]:
    """Every store unit of the home (a file on SQLite, a schema on PostgreSQL) by name."""
    home = world.runtime.home
    return [("instance", home.instance)] + [(s, home.scope_db(s)) for s in home.scope_names()]


def _project_store(world: World) -> Path:
    # a content project's store is a SQLite file beside its checkout on both backends
    return world.project / ".groundnote" / "work" / "store.db"


def _snapshot(world: World) -> tuple[dict[str, int], dict[str, dict[str, str]]]:
    """Row counts of every table in every store unit but the operation log, and the outcome
    of each unit's log rows by id."""
    counts: dict[str, int] = {}
    logs: dict[str, dict[str, str]] = {}

    def take(unit: str, conn: Any, tables: list[str]) -> None:
        for table in tables:
            if table == "log_tally":
                continue  # the log's counts by actor and operation: the log, counted
            if table == "search_log":
                rows = conn.execute("SELECT id, outcome FROM search_log").fetchall()
                logs[unit] = {r[0]: r[1] for r in rows}
            else:
                counts[f"{unit}:{table}"] = conn.execute(
                    f'SELECT count(*) FROM "{table}"'
                ).fetchone()[0]

    for unit, db in _units(world):
        tables = db.tables()
        with db.read() as conn:
            take(unit, conn, tables)
    if _project_store(world).exists():
        conn = sqlite3.connect(f"file:{_project_store(world)}?mode=ro", uri=True)
        try:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND sql NOT LIKE 'CREATE VIRTUAL%'"
                )
            ]
            take("project", conn, tables)
        finally:
            conn.close()
    return counts, logs


# -- the tests ----------------------------------------------------------------------------------


def test_every_capability_is_walked() -> None:
    names = {cap.name for cap in ALL}
    assert sorted(names - set(INPUTS)) == [], "a capability the walk cannot call: add its input"
    assert sorted(set(INPUTS) - names) == [], "an input for a capability that does not exist"
    assert all(surfaces(cap) for cap in ALL)


def test_every_walk_input_is_valid(world: World) -> None:
    """So that a refusal in the walk is the caller's, never the input's."""
    for cap in ALL:
        cap.input.model_validate(INPUTS[cap.name](world))


WALK = [(cap, surface, kind) for cap in ALL for surface in surfaces(cap) for kind in KINDS]


@pytest.mark.parametrize(
    ("cap", "surface", "kind"),
    WALK,
    ids=[f"{c.name}-{s}-{k}" for c, s, k in WALK],
)
def test_the_walk(world: World, cap: Capability[Any, Any], surface: str, kind: str) -> None:
    token_kind = "no-right-org" if kind == "no-right" and cap.tenancy.kind == "org" else kind
    token = world.tokens.get(token_kind)
    raw = INPUTS[cap.name](world)
    counts, logs = _snapshot(world)
    assert counts and logs, "the walk found no store to compare"
    outcome = CALLERS[surface](world, cap, raw, token)
    after_counts, after_logs = _snapshot(world)

    want = expected(cap, surface, kind, world.runtime.config)
    if want is not None:
        assert not outcome.ok, f"{cap.name} answered a {kind} caller on {surface}: {outcome.text}"
        if outcome.code is not None:
            assert outcome.code == want, outcome.text
        if outcome.status is not None:
            assert outcome.status == STATUS[want], outcome.text
    else:
        assert cap.kind == "query", "only a read may answer a caller without the right"
    if kind != "read":
        leaked = [s for s in SECRETS if s in outcome.text]
        assert leaked == [], f"{cap.name} on {surface} showed a {kind} caller {leaked}"

    changed = {k: (v, after_counts.get(k)) for k, v in counts.items() if after_counts.get(k) != v}
    changed |= {k: (None, v) for k, v in after_counts.items() if k not in counts}
    assert changed == {}, f"{cap.name} on {surface} for {kind} changed rows: {changed}"
    added = [
        outcome_row
        for unit, rows in after_logs.items()
        for log_id, outcome_row in rows.items()
        if log_id not in logs.get(unit, {})
    ]
    assert len(added) <= 1, added
    if want is not None and added:
        assert added == [want]


def test_every_operation_in_the_logs_is_declared(world: World) -> None:
    """The scope files' log no longer lists its operation names (graph/0004); every name in
    it must still be a declared one, as every name in instance.db's log is a capability's."""
    scope_names = {c.log_operation for c in ALL if c.log_operation}
    instance_names = {c.name for c in ALL} | {"impulses.resolve"}
    found: dict[str, set[str]] = {}
    for unit, db in _units(world):
        with db.read() as conn:
            found[unit] = {r[0] for r in conn.execute("SELECT operation FROM search_log")}
    assert found["sales"] and found["instance"]
    for name, operations in found.items():
        allowed = instance_names if name == "instance" else scope_names
        assert operations <= allowed, (name, operations - allowed)
