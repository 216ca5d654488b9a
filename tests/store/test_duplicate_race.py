"""Processes creating the same entity at the same moment (issue 12, item 2): the duplicate
checks of seed 000 §4 run inside the write transaction against committed state, so exactly
one entity is created and every other process gets `duplicate-candidate`, for literal
duplicates and for similar ones alike."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Right, create_grant
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime, open_runtime

pytestmark = pytest.mark.slow

# Literal duplicates of one another (case aside), and spellings that normalise alike and so
# are only similar duplicates: a check that saw nothing of the other processes lets them in.
LITERAL = ["Vertrieb Nord"] * 6
SIMILAR = ["Vertrieb Nord", "Vertrieb-Nord", "VERTRIEB NORD", "Vertrieb Nord.", "vertrieb nord"]


def _create(
    home: str,
    token: str,
    name: str,
    parent_id: str,
    barrier: Any,
    results: Any,
) -> None:
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    # Built before the race, as a long-running server's index would be.
    resolve = runtime.registry.get("graph.entity_resolve")
    runtime.invoke(resolve, {"scope": "sales", "q": "Vertrieb"}, principal=principal, channel="mcp")
    barrier.wait()
    create = runtime.registry.get("graph.entity_create")
    raw = {"scope": "sales", "type": "department", "name": name, "parent_id": parent_id}
    try:
        out = runtime.invoke(create, raw, principal=principal, channel="mcp")
        results.put(("created", out.model_dump(mode="json")["entity"]["id"]))
    except GroundnoteError as exc:
        results.put((exc.code, [c["id"] for c in exc.body().get("candidates", [])]))
    finally:
        runtime.close()


def _race(runtime: Runtime, home: Path, names: list[str]) -> tuple[list[Any], list[str]]:
    _, token = create_grant(
        runtime.home.instance,
        "racer",
        rights={"sales": Right.PROPOSE},
        channels=["mcp"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    principal = runtime.authenticate(token)
    create = runtime.registry.get("graph.entity_create")
    parent = runtime.invoke(
        create,
        {"scope": "sales", "type": "organisation", "name": "Musterfirma"},
        principal=principal,
        channel="mcp",
    ).model_dump(mode="json")["entity"]["id"]
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(names))
    results = context.Queue()
    workers = [
        context.Process(target=_create, args=(str(home), token, name, parent, barrier, results))
        for name in names
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=180) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    with runtime.home.scope_db("sales").read() as conn:
        children = [
            r[0]
            for r in conn.execute("SELECT id FROM entity_current WHERE parent_id = ?", (parent,))
        ]
    return outcomes, children


@pytest.mark.parametrize("names", [LITERAL, SIMILAR], ids=["literal", "similar"])
def test_one_entity_however_many_processes_race(
    runtime: Runtime, home_path: Path, scope: str, names: list[str]
) -> None:
    outcomes, children = _race(runtime, home_path, names)
    created = [ref for kind, ref in outcomes if kind == "created"]
    assert len(created) == 1, outcomes
    assert children == created
    refused = [(kind, ref) for kind, ref in outcomes if kind != "created"]
    assert refused == [("duplicate-candidate", created)] * (len(names) - 1)
