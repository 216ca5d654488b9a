"""The first five candidates of a resolve are the first five of all its candidates, whatever
the statuses, depths, types and runs of equal scores: resolve reads rows a batch at a time and
stops once five pass its filters (graph/resolve.py), and that must agree with reading every
candidate and ordering them by the seed's rule (§5.3), literal text first among equals."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.auth import Principal, Right
from groundnote.domain.errors import GroundnoteError
from groundnote.graph.normalize import normalize
from groundnote.graph.resolve import MAX_CANDIDATES, resolve_key
from groundnote.graph.trigram import index_for
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry

AGENT = Principal(
    id="grant:order", org="local", channels=frozenset({"mcp"}), rights={"*": Right.PROPOSE}
)
PERSON = Principal(
    id="person:ruth", org="local", channels=frozenset({"approval"}), rights={"*": Right.DECIDE}
)
# One digit from 1234 scores all alike: long runs of equal scores, cut where five are wanted.
ONE_DIGIT_OFF = sorted({int(f"{1234:04d}"[:i] + d + f"{1234:04d}"[i + 1 :]) for i in range(4)
                        for d in "0123456789"} - {1234})  # fmt: skip
NUMBERS = [12345, *ONE_DIGIT_OFF]
QUERIES = ["Organisation 1234 neu", "ORGANISATION 1234 NEU GMBH", "Organisation 1239 neu"]

entity = st.fixed_dictionaries(
    {
        # as often the query's own number: long runs of exact matches too, literal or not
        "number": st.just(1234) | st.sampled_from(NUMBERS),
        "parent": st.none() | st.integers(0, 30),
        "type": st.sampled_from(["organisation", "department"]),
        "status": st.sampled_from(["unconfirmed", "active", "active", "archived"]),
        "alias": st.booleans(),
        # with a legal form: the same key, the literal text of another query
        "gmbh": st.booleans(),
    }
)


def _call(runtime: Runtime, scope: str, capability: str, **raw: Any) -> dict[str, Any]:
    out = runtime.invoke(
        runtime.registry.get(capability), {"scope": scope, **raw}, principal=AGENT, channel="mcp"
    )
    dumped: dict[str, Any] = out.model_dump(mode="json")
    return dumped


def _decide(runtime: Runtime, capability: str, **raw: Any) -> None:
    cap = approval_registry().get(capability)
    runtime.invoke(cap, raw, principal=PERSON, channel="approval")


def _populate(runtime: Runtime, scope: str, entities: list[dict[str, Any]]) -> list[str]:
    made: list[tuple[str, str]] = []  # (id, status wanted)
    for n, spec in enumerate(entities):
        ids = [entity_id for entity_id, _ in made]
        parent = ids[spec["parent"] % len(ids)] if ids and spec["parent"] is not None else None
        extra = {"aliases": [f"Org {spec['number']}"]} if spec["alias"] else {}
        name = f"Organisation {spec['number']} neu"
        try:
            out = _call(
                runtime, scope, "graph.entity_create",
                name=f"{name} GmbH" if spec["gmbh"] else name, type=spec["type"], parent_id=parent,
                force=True, reason=f"entity {n} of the example", **extra,
            )  # fmt: skip
        except GroundnoteError:
            continue  # a literal duplicate under the same parent: refused even with force
        made.append((out["entity"]["id"], spec["status"]))
    # Children first, so that an archived parent leaves its children as they were made.
    for entity_id, status in reversed(made):
        if status == "active":
            _decide(runtime, "structure.review", target=f"entity/{entity_id}@1", verdict="confirm")
        if status == "archived":
            with suppress(GroundnoteError):  # refused while it has children: it stays too
                _decide(
                    runtime, "structure.archive",
                    id=entity_id, version=1, subtree=False, reason="gone",
                )  # fmt: skip
    return [entity_id for entity_id, _ in made]


def _listed(matches: list[Any]) -> list[tuple[Any, ...]]:
    return [(m.id, m.score, m.match, m.status, m.level, tuple(m.path)) for m in matches]


@pytest.mark.slow
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    entities=st.lists(entity, min_size=20, max_size=30),
    query=st.sampled_from(QUERIES),
    type=st.none() | st.sampled_from(["organisation", "department"]),
    exclude=st.none() | st.integers(0, 30),
)
def test_the_first_five_are_the_first_five_of_all(
    runtime: Runtime,
    entities: list[dict[str, Any]],
    query: str,
    type: str | None,
    exclude: int | None,
) -> None:
    scope = f"o{len(runtime.home.scope_names()):04d}"
    runtime.home.create_scope(scope)
    ids = _populate(runtime, scope, entities)
    left_out = ids[exclude % len(ids)] if ids and exclude is not None else None
    db = runtime.home.scope_db(scope)
    index, key = index_for(db), normalize(query)
    few = resolve_key(index, key, type=type, exclude=left_out, query=query)
    every = resolve_key(index, key, type=type, exclude=left_out, query=query, limit=10_000)
    assert len(few) == min(MAX_CANDIDATES, len(every))
    assert _listed(few) == _listed(every[:MAX_CANDIDATES])
    assert all(m.status != "archived" and m.id != left_out for m in every)
    assert type is None or all(m.type == type for m in every)
