"""The impulse table: schema, org-filtered reads, expiry sweep, lifecycle events."""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Principal, Right
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import NotFound
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.session import Session
from groundnote.impulses.table import insert_impulse, prune_expired_impulses, prune_periodically
from groundnote.runtime import Runtime, open_runtime
from groundnote.store.sql import IntegrityError
from tests.impulses.conftest import Resolve, count, rows
from tests.impulses.test_write_shapes import make_concept


@pytest.mark.sqlite_only("reads SQLite's PRAGMA catalogue of the table and its indexes")
def test_the_impulse_table_has_the_seeds_fields_and_indexes(runtime: Runtime) -> None:
    with runtime.home.instance.read() as conn:
        columns = [r["name"] for r in conn.execute("PRAGMA table_info(impulse)")]
        indexes = {
            r["name"]: [c["name"] for c in conn.execute(f"PRAGMA index_info({r['name']})")]
            for r in conn.execute("PRAGMA index_list(impulse)")
            if r["origin"] == "c"
        }
    assert columns == [
        "id",
        "pointer",
        "shape",
        "summary",
        "content",
        "metadata",
        "org_id",
        "project_id",
        "created_at",
        "created_by_activity_id",
        "created_by_resolver_id",
        "expires_at",
    ]
    assert indexes == {
        "idx_impulse_org": ["org_id"],
        "idx_impulse_shape": ["shape"],
        "idx_impulse_created": ["created_at"],
        "idx_impulse_expires": ["expires_at"],
        "idx_impulse_activity": ["created_by_activity_id"],
    }


def test_the_database_keeps_edges_inside_one_org(
    runtime: Runtime, resolve: Resolve, acme: str, globex: str
) -> None:
    a, g = make_concept(resolve, acme), make_concept(resolve, globex)
    with (
        pytest.raises(IntegrityError, match="link-endpoint-unknown"),
        runtime.home.instance.write() as conn,
    ):
        conn.execute(
            "INSERT INTO concept_edge (id, org_id, from_concept_id, to_concept_id, edge_type, "
            "weight, created_at, updated_at) VALUES ('edge:x', 'acme', ?, ?, 't', 1, "
            "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
            (a, g),
        )


def _insert(runtime: Runtime, org: str, expires_at: str | None) -> str:
    with runtime.home.instance.write() as conn:
        s = Session(conn, org, runtime.home.clock.instant(), runtime.config.impulses)
        impulse = insert_impulse(
            s, shape="relatedConceptsResult", pointer={"q": 1}, expires_at=expires_at
        )
    lifecycle(runtime.home).emit(s.events)
    return impulse.id


def _principal(org: str) -> Principal:
    return Principal(
        id=f"grant:{org}", org=org, channels=frozenset({"api", "cli"}), rights={"*": Right.PROPOSE}
    )


def test_insert_read_prune_with_events(runtime: Runtime, clock: FixedClock) -> None:
    heard: list[LifecyclePayload] = []
    offs = [
        lifecycle(runtime.home).on(e, heard.append)
        for e in ("impulse:created", "impulse:resolved", "impulse:expired")
    ]
    short = _insert(runtime, "acme", "2026-11-30T09:00:01.000Z")
    keep = _insert(runtime, "acme", None)
    read = runtime.registry.get("impulses.impulse_read")
    out = runtime.invoke(read, {"id": short}, principal=_principal("acme"), channel="api")
    assert out.model_dump()["pointer"] == {"q": 1}
    with pytest.raises(NotFound):
        runtime.invoke(read, {"id": short}, principal=_principal("globex"), channel="api")

    clock.moment = datetime(2026, 11, 30, 9, 0, 2, tzinfo=UTC)
    assert prune_expired_impulses(runtime.home) == 1
    assert [r["id"] for r in rows(runtime, "impulse")] == [keep]
    assert [(p.event, (p.impulse or {})["id"]) for p in heard] == [
        ("impulse:created", short),
        ("impulse:created", keep),
        ("impulse:resolved", short),
        ("impulse:expired", short),
    ]
    for off in offs:
        off()


def test_the_prune_capability_only_touches_the_callers_org(
    runtime: Runtime, clock: FixedClock
) -> None:
    _insert(runtime, "acme", "2026-11-30T09:00:01.000Z")
    _insert(runtime, "globex", "2026-11-30T09:00:01.000Z")
    clock.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    cap = runtime.registry.get("impulses.prune")
    out = runtime.invoke(cap, {}, principal=_principal("acme"), channel="cli")
    assert out.model_dump() == {"removed": 1}
    assert [r["org_id"] for r in rows(runtime, "impulse")] == ["globex"]


def test_the_periodic_sweep_runs(runtime: Runtime, clock: FixedClock) -> None:
    _insert(runtime, "acme", "2026-11-30T09:00:01.000Z")
    clock.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)

    async def run_briefly() -> None:
        task = asyncio.create_task(prune_periodically(runtime.home, 0.01))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if count(runtime, "impulse") == 0:
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(run_briefly())
    assert count(runtime, "impulse") == 0


def test_concept_and_edge_events(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    heard: list[tuple[str, Any]] = []

    def record(p: LifecyclePayload) -> None:
        heard.append((p.event, p.org_id))

    events = (
        "concept:created",
        "concept:resolved",
        "concept:updated",
        "edge:created",
        "edge:updated",
    )
    offs = [lifecycle(runtime.home).on(e, record) for e in events]  # type: ignore[arg-type]
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    link = {"from_concept_id": a, "to_concept_id": b, "edge_type": "t"}
    resolve({"type": "conceptLink_write", "linkData": link}, acme)
    resolve({"type": "conceptLink_write", "linkData": link}, acme)
    resolve({"type": "concept", "concept_id": a}, acme)
    resolve({"type": "conceptUsage_write", "usageData": {"concept_id": a}}, acme)
    assert [e for e, _ in heard] == [
        "concept:created",
        "concept:created",
        "edge:created",
        "edge:updated",
        "concept:resolved",
        "concept:updated",
    ]
    assert {o for _, o in heard} == {"acme"}
    for off in offs:
        off()


def test_a_failing_handler_does_not_undo_the_write(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    def broken(_: LifecyclePayload) -> None:
        raise RuntimeError("subscriber bug")

    off = lifecycle(runtime.home).on("concept:created", broken)
    assert (
        resolve({"type": "concept_create_write", "conceptData": {"name": "x", "shape": "s"}}, acme)[
            0
        ]
        == 200
    )
    assert count(runtime, "concept") == 1
    off()


def test_unknown_event_is_refused(runtime: Runtime) -> None:
    with pytest.raises(ValueError, match="concept:created"):
        lifecycle(runtime.home).on("concept:exploded", print)  # type: ignore[arg-type]


def test_two_serve_processes_sweeping_at_once_remove_each_impulse_once(
    runtime: Runtime, clock: FixedClock, home_path: Path
) -> None:
    """Every `serve` on a home runs the sweep (issue 12, item 4): it must be harmless twice.
    The second runtime is another process's view of the home: its own handles and events."""
    expired = {_insert(runtime, "acme", "2026-11-30T09:00:01.000Z") for _ in range(40)}
    kept = _insert(runtime, "acme", None)
    clock.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    other = open_runtime(home_path, clock=clock, environ={})
    heard: dict[str, list[str]] = {"this": [], "other": []}
    offs = [
        lifecycle(rt.home).on("impulse:expired", lambda p, k=key: heard[k].append(p.impulse["id"]))
        for key, rt in (("this", runtime), ("other", other))
    ]
    with ThreadPoolExecutor(2) as pool:
        removed = list(pool.map(prune_expired_impulses, [runtime.home, other.home]))
    assert sum(removed) == len(expired)
    assert sorted(heard["this"] + heard["other"]) == sorted(expired)  # one event per impulse
    assert prune_expired_impulses(runtime.home) == 0
    assert [r["id"] for r in rows(runtime, "impulse")] == [kept]
    for off in offs:
        off()
    other.close()
