"""The current rows the resolve index holds (graph/current.py) are the store's: after moves,
renames, confirms, reverts and archives, each entity's row, parent, level and path as held,
whether taken in write by write or built afresh, equal what entity_current and the closure
say."""

from __future__ import annotations

import json
from typing import Any

from groundnote.auth import Principal, Right
from groundnote.graph.current import Current
from groundnote.graph.queries import path_items
from groundnote.graph.trigram import index_for
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry
from tests.conftest import Call

PERSON = Principal(
    id="person:ruth", org="local", channels=frozenset({"approval"}), rights={"*": Right.DECIDE}
)


def _decide(runtime: Runtime, capability: str, **raw: Any) -> None:
    runtime.invoke(approval_registry().get(capability), raw, principal=PERSON, channel="approval")


def _from_store(runtime: Runtime, scope: str) -> dict[int, tuple[Any, ...]]:
    """seq → what resolve shows of the entity, read from the tables."""
    out = {}
    with runtime.home.scope_db(scope).read() as conn:
        for row in conn.execute(
            "SELECT e.seq, k.id, k.type, k.name, k.aliases, k.status, k.parent_id, "
            "(SELECT count(*) FROM entity_closure c WHERE c.descendant_id = k.id) AS level "
            "FROM entity e JOIN entity_current k ON k.id = e.id"
        ):
            trail = [(p.id, p.name, p.type) for p in path_items(conn, row["id"])]
            out[row["seq"]] = (
                row["id"], row["type"], row["name"], row["aliases"], row["status"],
                row["parent_id"], row["level"], trail,
            )  # fmt: skip
    return out


def _held(found: dict[int, Current]) -> dict[int, tuple[Any, ...]]:
    return {
        seq: (
            c.id,
            c.type,
            c.name,
            json.dumps(c.aliases, ensure_ascii=False),
            c.status,
            c.parent_id,
            c.level,
            [(p.id, p.name, p.type) for p in c.trail()],
        )
        for seq, c in found.items()
    }


def test_the_held_rows_are_the_stores_after_every_kind_of_version(
    runtime: Runtime, scope: str, call: Call
) -> None:
    def create(name: str, parent: str | None = None, **extra: Any) -> str:
        raw = {"type": "department", "name": name, "parent_id": parent} | extra
        out = call("graph.entity_create", scope=scope, force=True, reason="test", **raw)
        entity_id: str = out["entity"]["id"]
        return entity_id

    index = index_for(runtime.home.scope_db(scope))

    def held_as_stored() -> dict[int, tuple[Any, ...]]:
        expected = _from_store(runtime, scope)
        assert _held(index.current(expected)) == expected
        return expected

    top = create("Müller Gruppe", type="organisation")
    other = create("Schäfer Bau", type="organisation")
    yard = create("Hof", other)
    north = create("Vertrieb Nord", top, aliases=["VN", "Nordvertrieb"])
    team = create("Team Kiel", north)
    desk = create("Empfang", team)
    held_as_stored()  # built here; every later version is taken in write by write
    _decide(runtime, "structure.review", target=f"entity/{top}@1", verdict="confirm")
    _decide(runtime, "structure.review", target=f"entity/{north}@1", verdict="confirm")
    held_as_stored()
    # a subtree moves one level down: its descendants' levels and paths change with it
    call("graph.entity_move", scope=scope, id=north, parent_id=yard, reason="reorganised")
    assert held_as_stored()[int(desk.rsplit("-e", 1)[1])][6] == 5
    call("graph.entity_update", scope=scope, id=other, name="Schäfer Bau & Söhne",
         reason="the register says so")  # fmt: skip
    held_as_stored()
    # revert the move: the last confirmed version comes back, under the first parent
    _decide(
        runtime, "structure.review", target=f"entity/{north}@3", verdict="revert", reason="not so"
    )
    assert held_as_stored()[int(team.rsplit("-e", 1)[1])][7][0][1] == "Müller Gruppe"
    _decide(runtime, "structure.archive", id=desk, version=1, subtree=False, reason="closed")
    lone = create("Lager Süd")
    _decide(
        runtime, "structure.review", target=f"entity/{lone}@1", verdict="revert", reason="not so"
    )
    expected = held_as_stored()
    assert {v[4] for v in expected.values()} == {"active", "unconfirmed", "archived"}
    index.reset()  # as a process that starts now builds it
    assert _held(index.current(expected)) == expected
