"""Property (issue 12): random creates, moves, renames, reviews and archives spread over two processes
on one home; after every step both processes' resolve answers equal those of a runtime opened
afresh on the home, which builds its index from the file as a newly started process would.

The two processes live for the whole test (spawned once, driven over pipes), so their resolve
indexes are built early and must follow every later write of the other by the change record.
Each example works in a scope of its own.
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.auth import Principal, Right
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.http.approval import approval_registry
from tests.conftest import home_on_database

# the module's two processes and their home serve every example
pytestmark = [pytest.mark.slow, pytest.mark.database_per_module]

WORDS = ["Vertrieb", "Nord", "Süd", "Müller", "Bau", "Logistik", "Schäfer"]
AGENT = Principal(
    id="grant:prop", org="local", channels=frozenset({"mcp"}), rights={"*": Right.PROPOSE}
)
PERSON = Principal(
    id="person:ruth", org="local", channels=frozenset({"approval"}), rights={"*": Right.DECIDE}
)


def answers(runtime: Runtime, scope: str, queries: list[str]) -> list[list[tuple[Any, ...]]]:
    resolve = runtime.registry.get("graph.entity_resolve")
    found = []
    for q in queries:
        out = runtime.invoke(resolve, {"scope": scope, "q": q}, principal=AGENT, channel="mcp")
        found.append(
            [
                (c.id, c.score, c.match, c.status, tuple(c.path))
                for c in out.candidates  # type: ignore[attr-defined]
            ]
        )
    return found


def _version(runtime: Runtime, scope: str, entity_id: str) -> int:
    with runtime.home.scope_db(scope).read() as conn:
        version: int = conn.execute(
            "SELECT version FROM entity_current WHERE id = ?", (entity_id,)
        ).fetchone()[0]
    return version


def _archive(runtime: Runtime, scope: str, entity_id: str) -> None:
    cap = approval_registry().get("structure.archive")
    version = _version(runtime, scope, entity_id)
    raw = {"id": entity_id, "version": version, "subtree": True, "reason": "gone"}
    runtime.invoke(cap, raw, principal=PERSON, channel="approval")


def _review(runtime: Runtime, scope: str, entity_id: str, verdict: str) -> None:
    """A person confirms the entity's current version, or reverts it (which archives an
    entity never confirmed, and otherwise brings back its last confirmed name and parent)."""
    cap = approval_registry().get("structure.review")
    target = f"entity/{entity_id}@{_version(runtime, scope, entity_id)}"
    raw = {"target": target, "verdict": verdict, "reason": "the person looked"}
    runtime.invoke(cap, raw, principal=PERSON, channel="approval")


def _serve(home: str, pipe: Connection) -> None:
    """One process on the home: runs what the test sends, answers with ids or error codes."""
    runtime = open_runtime(Path(home), environ={})
    while True:
        message = pipe.recv()
        if message is None:
            break
        kind, scope, arg = message
        try:
            if kind == "resolve":
                pipe.send(("ok", answers(runtime, scope, arg)))
                continue
            if kind == "archive":
                _archive(runtime, scope, arg)
                pipe.send(("ok", None))
                continue
            if kind in ("confirm", "revert"):
                _review(runtime, scope, arg, kind)
                pipe.send(("ok", None))
                continue
            out = runtime.invoke(runtime.registry.get(kind), arg, principal=AGENT, channel="mcp")
            pipe.send(("ok", out.model_dump(mode="json")))
        except GroundnoteError as exc:
            pipe.send(("refused", exc.code))
    runtime.close()


class Process:
    def __init__(self, home: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(str(home), theirs))
        self.process.start()

    def ask(self, kind: str, scope: str, arg: Any) -> tuple[str, Any]:
        self.pipe.send((kind, scope, arg))
        if not self.pipe.poll(120):
            raise RuntimeError(f"the process did not answer {kind} within 120 s")
        answer: tuple[str, Any] = self.pipe.recv()
        return answer

    def stop(self) -> None:
        self.pipe.send(None)
        self.process.join(timeout=30)


@pytest.fixture(scope="module")
def home(
    tmp_path_factory: pytest.TempPathFactory, module_database_url: str | None
) -> Iterator[tuple[Runtime, list[Process]]]:
    path = home_on_database(tmp_path_factory.mktemp("two") / "home", module_database_url)
    runtime = open_runtime(path, environ={})
    processes = [Process(path), Process(path)]
    yield runtime, processes
    for process in processes:
        process.stop()
    runtime.close()


NAMES = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2, unique=True).map(" ".join)
STEP = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 1), NAMES, st.integers(-1, 20)),
    st.tuples(st.just("move"), st.integers(0, 1), st.integers(0, 20), st.integers(-1, 20)),
    st.tuples(st.just("rename"), st.integers(0, 1), st.integers(0, 20), NAMES),
    st.tuples(st.just("archive"), st.integers(0, 1), st.integers(0, 20), st.just(0)),
    st.tuples(
        st.sampled_from(["confirm", "revert"]), st.integers(0, 1), st.integers(0, 20), st.just(0)
    ),
)
SCOPES = (f"prop-{n}" for n in itertools.count())


def _spellings(name: str) -> list[str]:
    spelled = name.replace("ü", "ue").replace("ä", "ae")
    typo = name[:2] + name[3:] if len(name) > 4 else name
    return [name, spelled, typo]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=1, max_size=8))
def test_both_processes_answer_as_a_fresh_one(
    home: tuple[Runtime, list[Process]], steps: list[tuple[str, int, Any, Any]]
) -> None:
    runtime, processes = home
    scope = next(SCOPES)
    runtime.home.create_scope(scope)
    queries = ["Vertrieb", "Mueller Bau", "Logistik Nord"]
    for process in processes:  # both build their index before any write
        assert process.ask("resolve", scope, queries)[0] == "ok"
    ids: list[str] = []
    # Two entities first, one by each process, so that every example has something to move.
    seeded = [("create", 0, "Vertrieb Nord", -1), ("create", 1, "Müller Bau", -1)]
    for kind, by, first, second in [*seeded, *steps]:
        writer = processes[by]
        if kind == "create":
            parent = ids[second % len(ids)] if ids and second >= 0 else None
            raw = {"scope": scope, "type": "department", "name": first, "parent_id": parent}
            raw |= {"force": True, "reason": "the person said it is another one"}
            status, body = writer.ask("graph.entity_create", scope, raw)
            if status == "ok":
                ids.append(body["entity"]["id"])
            queries += [q for q in _spellings(first) if q not in queries]
        elif not ids:
            continue
        elif kind == "move":
            parent = ids[second % len(ids)] if second >= 0 else None
            raw = {"scope": scope, "id": ids[first % len(ids)], "parent_id": parent}
            writer.ask("graph.entity_move", scope, raw)
        elif kind == "rename":
            raw = {"scope": scope, "id": ids[first % len(ids)], "name": second, "force": True}
            writer.ask("graph.entity_update", scope, raw | {"reason": "renamed by the person"})
            queries += [q for q in _spellings(second) if q not in queries]
        else:  # archive, confirm, revert: a person's decision
            writer.ask(kind, scope, ids[first % len(ids)])
        fresh = open_runtime(runtime.home.path, environ={})
        try:
            expected = answers(fresh, scope, queries)
        finally:
            fresh.close()
        for process in processes:
            assert process.ask("resolve", scope, queries) == ("ok", expected), (kind, steps)
