"""The name vectors of entity_resolve's last tier stay coherent across processes (issue 19):
one process embeds and writes them, the other loads them from the change record instead of
embedding again; a rename in one is followed by the other's next answer."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Principal, Right
from groundnote.embedding import embedder_for
from groundnote.graph.name_vectors import name_vectors
from groundnote.runtime import Runtime, open_runtime
from tests.conftest import Call
from tests.graph.test_semantic_tier import ON, ask, semantic, tree

__all__ = ["ask", "semantic", "tree"]  # the fixtures this module shares

pytestmark = pytest.mark.slow

OTHER = Principal(
    id="grant:other", org="local", channels=frozenset({"mcp"}), rights={"*": Right.PROPOSE}
)


def _serve(home: str, pipe: Connection) -> None:
    """The other process on the home: resolves, or tells how many name vectors it holds."""
    runtime = open_runtime(Path(home), environ=ON)
    db = runtime.home.scope_db("sales")
    while (message := pipe.recv()) is not None:
        kind, arg = message
        if kind == "resolve":
            cap = runtime.registry.get("graph.entity_resolve")
            out = runtime.invoke(cap, {"scope": "sales", "q": arg}, principal=OTHER, channel="mcp")
            candidates = out.candidates  # type: ignore[attr-defined]
            pipe.send([(c.id, c.name, c.match) for c in candidates])
        else:
            held = name_vectors(db, embedder_for(runtime.config.search))
            pipe.send((len(held), held.pending))
    runtime.close()


@pytest.fixture
def other(semantic: Runtime) -> Iterator[Any]:
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(str(semantic.home.path), theirs))
    process.start()

    def send(kind: str, arg: str = "") -> Any:
        ours.send((kind, arg))
        if not ours.poll(120):
            raise AssertionError("the other process did not answer within 120 s")
        return ours.recv()

    yield send
    ours.send(None)
    process.join(30)
    assert process.exitcode == 0


def test_vectors_one_process_writes_are_loaded_by_the_other_and_follow_a_rename(
    ask: Call, tree: dict[str, str], semantic: Runtime, other: Any
) -> None:
    names = len(tree)
    found = other("resolve", "accounting")
    assert found[0] == (tree["Buchhaltung"], "Buchhaltung", "semantic")
    assert other("vectors") == (names, 0)

    db = semantic.home.scope_db("sales")
    ours = name_vectors(db, embedder_for(semantic.config.search))
    # Loaded from the rows the other process wrote, never embedded here.
    assert (len(ours), ours.pending) == (names, 0)
    assert ours.catch_up() == 0
    answer = ask("graph.entity_resolve", scope="sales", q="accounting")
    assert [(c["id"], c["name"], c["match"]) for c in answer["candidates"]] == found

    ask("graph.entity_update", scope="sales", id=tree["Buchhaltung"], name="Fuhrpark")
    assert tree["Buchhaltung"] not in [c[0] for c in other("resolve", "accounting")]
    assert other("vectors") == (names, 0)  # the other re-embedded the new name
    assert (len(ours), ours.pending) == (names, 0)  # and this one loaded it
    with db.read() as conn:
        texts = {r[0] for r in conn.execute("SELECT text FROM entity_vector")}
    assert "Fuhrpark" in texts and "Buchhaltung" not in texts
