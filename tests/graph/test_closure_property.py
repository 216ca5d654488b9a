"""After any sequence of create / move / update, the incremental closure equals a rebuild and
every path equals the walk along parent ids; cycles and depth limits are refused with both
paths (DESIGN §14)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.auth import Right
from groundnote.domain.errors import Cycle, DepthLimit, GroundnoteError
from groundnote.graph import rebuild_closure
from groundnote.graph.closure import closure_rows
from groundnote.runtime import Runtime, open_runtime
from tests.conftest import make_principal

step = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 30)),
    st.tuples(st.just("move"), st.integers(0, 30), st.integers(-1, 30)),
    st.tuples(st.just("update"), st.integers(0, 30)),
)


@pytest.fixture
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    from datetime import UTC, datetime

    from groundnote.domain.clock import FixedClock

    rt = open_runtime(
        tmp_path_factory.mktemp("home"),
        environ={},
        clock=FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC)),
    )
    rt.config.graph.max_depth = 5
    yield rt
    rt.close()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(step, min_size=1, max_size=25))
def test_closure_equals_rebuild(shared: Runtime, steps: list[tuple[int, ...]]) -> None:
    scope = f"p{len(shared.home.scope_names()):04d}"
    shared.home.create_scope(scope)
    who, _ = make_principal(shared, f"agent-{scope}", {scope: Right.PROPOSE}, ["mcp"])

    def call(capability: str, /, **raw: object) -> dict[str, object]:
        out = shared.invoke(
            shared.registry.get(capability), {"scope": scope, **raw}, principal=who, channel="mcp"
        )
        return out.model_dump(mode="json")

    ids: list[str] = []
    for n, action in enumerate(steps):
        kind = action[0]
        try:
            if kind == "create":
                parent = ids[int(action[1]) % len(ids)] if ids and action[1] % 3 else None
                out = call(
                    "graph.entity_create",
                    type="topic",
                    name=f"Knoten {n} {'x' * n}",
                    parent_id=parent,
                    force=True,
                    reason="generated",
                )
                ids.append(out["entity"]["id"])  # type: ignore[index]
            elif kind == "move" and ids:
                target = None if action[2] < 0 else ids[int(action[2]) % len(ids)]
                call("graph.entity_move", id=ids[int(action[1]) % len(ids)], parent_id=target)
            elif kind == "update" and ids:
                call(
                    "graph.entity_update",
                    id=ids[int(action[1]) % len(ids)],
                    aliases_add=[f"Alias {n} {'y' * n}"],
                    force=True,
                    reason="generated",
                )
        except Cycle as exc:
            body = exc.body()
            assert body["paths"]["entity"] and body["paths"]["target"]
            target_path = [p["id"] for p in body["paths"]["target"]]
            assert body["paths"]["entity"][-1]["id"] in target_path
        except DepthLimit as exc:
            assert exc.body()["limit"] == 5
        except GroundnoteError as exc:  # pragma: no cover - shows which refusal was unexpected
            raise AssertionError(exc.body()) from exc

    db = shared.home.scope_db(scope)
    with db.read() as conn:
        incremental = {tuple(r) for r in conn.execute("SELECT * FROM entity_closure")}
        assert incremental == closure_rows(conn)
        parents = {r[0]: r[1] for r in conn.execute("SELECT id, parent_id FROM entity_current")}
    rebuild_closure(db)
    with db.read() as conn:
        assert {tuple(r) for r in conn.execute("SELECT * FROM entity_closure")} == incremental
    for entity_id in ids:
        walk: list[str] = []
        node: str | None = entity_id
        while node is not None:
            walk.insert(0, node)
            node = parents[node]
        path = call("graph.entity_path", id=entity_id)["path"]
        assert [p["id"] for p in path] == walk  # type: ignore[union-attr,index]
        assert len(walk) <= 5
