"""The query-shape conformance suite: one fixture, one table of answers, every store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from groundnote.context import query
from groundnote.context.memgraph import MemoryGraph
from groundnote.context.projectdb import ProjectDB, sidecar_path
from groundnote.context.rollup import publish, rollup
from groundnote.context.vocabulary import Scope
from groundnote.domain.clock import FixedClock
from groundnote.runtime import open_runtime
from tests.context.graph_fixture import ALPHA, BETA, SHARED_KEY, alpha, beta, load_fixture

ACME = Scope(workspace="acme")
CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


@pytest.fixture(params=["project-store", "in-memory", "in-memory-sidecar", "rollup"])
def graph(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "project-store":
        store = ProjectDB.open(tmp_path, CLOCK)
        load_fixture(store.graph)
        yield store.graph
        store.close()
        return
    if request.param == "rollup":
        # Each project in its own store, both published into one home's instance store.
        runtime = open_runtime(tmp_path / "home", clock=CLOCK, environ={})
        published = rollup(runtime.home.instance)
        for scope, build in ((ALPHA, alpha), (BETA, beta)):
            project = ProjectDB.open(tmp_path / scope.project, CLOCK)
            project.graph.replace_scope(scope, *build(), source_digest="fixture")
            publish(project.graph, scope, published)
            project.close()
        yield published
        runtime.close()
        return
    memory = MemoryGraph()
    load_fixture(memory)
    if request.param == "in-memory-sidecar":
        memory.save(sidecar_path(tmp_path))
        memory = MemoryGraph.load(sidecar_path(tmp_path))
    yield memory


def _names(nodes: list[Any]) -> list[str]:
    return [f"{n.scope.project}:{n.local}" for n in nodes]


def _usage(graph: Any, at: str, market: str | None, scope: Scope = ACME) -> list[Any]:
    return [
        (p.project, p.count, [(t.term, t.blocks, t.count, t.status) for t in p.terms])
        for p in query.uses_by_project(graph, "email", scope, at=at, market=market)
    ]


# One table of expected answers: (question, answer) with the store as the only variable.
EXPECTED: list[tuple[str, Any, Any]] = [
    ("projects, any", lambda g: query.projects_using_concept(g, "email", ACME), ["alpha", "beta"]),
    ("projects, beta", lambda g: query.projects_using_concept(g, "email", BETA), ["beta"]),
    (
        "projects, other workspace",
        lambda g: query.projects_using_concept(g, "email", Scope("x")),
        [],
    ),
    (
        "uses",
        lambda g: [
            (u.project, u.content_key, u.collections, u.term, u.count)
            for u in query.uses(g, "email", ACME)
        ],
        [
            ("alpha", "k-a2", ("guides",), "e-mail", 3),
            ("alpha", SHARED_KEY, ("guides",), "e-mail", 1),
            ("alpha", SHARED_KEY, ("guides",), "email", 2),
            ("beta", SHARED_KEY, ("docs",), "email", 1),
        ],
    ),
    (
        "usage before the deprecation, US",
        lambda g: _usage(g, "2026-11-30T00:00:00.000Z", "US"),
        [
            ("alpha", 6, [("e-mail", 2, 4, "admitted"), ("email", 1, 2, "preferred")]),
            ("beta", 1, [("email", 1, 1, "preferred")]),
        ],
    ),
    (
        "usage after the deprecation, inside its market",
        lambda g: _usage(g, "2027-06-01T00:00:00.000Z", "US", ALPHA),
        [("alpha", 6, [("e-mail", 2, 4, "deprecated"), ("email", 1, 2, "preferred")])],
    ),
    (
        "usage after the deprecation, outside its market",
        lambda g: _usage(g, "2027-06-01T00:00:00.000Z", "GB", ALPHA),
        [("alpha", 6, [("e-mail", 2, 4, "unlisted"), ("email", 1, 2, "preferred")])],
    ),
    (
        "governed in March 2026",
        lambda g: _names(
            query.collections_at_coordinate(g, "formal", "web", ACME, at="2026-03-01T00:00:00.000Z")
        ),
        ["alpha:guides"],
    ),
    (
        "governed in July 2026",
        lambda g: _names(
            query.collections_at_coordinate(g, "formal", "web", ACME, at="2026-07-01T00:00:00.000Z")
        ),
        ["alpha:guides", "beta:docs"],
    ),
    (
        "governed in 2027 (alpha's window is half-open)",
        lambda g: _names(
            query.collections_at_coordinate(g, "formal", "web", ACME, at="2027-01-01T00:00:00.000Z")
        ),
        ["beta:docs"],
    ),
    (
        "blessings of the shared wording",
        lambda g: [
            (b.document, b.unit, b.variant, b.decision, b.target_hash, b.source_basis)
            for b in query.blessings_of_block(g, SHARED_KEY, ACME)
        ],
        [("intro", "u1", "de-DE", "signed_off", "t-9", SHARED_KEY)],
    ),
    ("blessings inside alpha", lambda g: query.blessings_of_block(g, SHARED_KEY, ALPHA), []),
    (
        "who else holds this wording",
        lambda g: _names(query.blocks_with_content_key(g, SHARED_KEY, ACME)),
        ["alpha:k-shared", "beta:k-shared"],
    ),
    (
        "this wording inside beta",
        lambda g: _names(query.blocks_with_content_key(g, SHARED_KEY, BETA)),
        ["beta:k-shared"],
    ),
]


@pytest.mark.parametrize(("question", "ask", "answer"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_query_shape(graph: Any, question: str, ask: Any, answer: Any) -> None:
    assert ask(graph) == answer, question


def test_a_pass_clears_only_its_own_scope(graph: Any) -> None:
    nodes, _ = alpha()
    graph.replace_scope(ALPHA, [n for n in nodes if n.local != "k-a2"], [])
    assert query.projects_using_concept(graph, "email", ACME) == ["beta"]
    assert _names(query.blocks_with_content_key(graph, SHARED_KEY, ACME)) == [
        "alpha:k-shared",
        "beta:k-shared",
    ]
    graph.replace_scope(ALPHA, [], [])
    assert "concept:acme//:email" in graph.nodes(
        ["concept:acme//:email"]
    )  # shared: beta still uses it
    assert graph.find_nodes("collection", ALPHA) == []
    graph.replace_scope(BETA, [], [])
    assert graph.nodes(["concept:acme//:email"]) == {}  # nobody declares or uses it now
