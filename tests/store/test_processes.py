"""Several processes writing one store file: nothing lost, no `database is locked` reaching a caller."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from groundnote.auth import Right, create_grant
from groundnote.runtime import open_runtime

pytestmark = pytest.mark.slow

PROCESSES = 4
CALLS = 60


def _worker(home: str, token: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    status = runtime.registry.get("core.status")
    failures = []
    for _ in range(CALLS):
        try:
            runtime.invoke(status, {"scope": "shared"}, principal=principal, channel="api")
        except Exception as exc:  # every failure is reported to the parent, none swallowed
            failures.append(repr(exc))
    runtime.close()
    queue.put(failures)


def test_processes_lose_no_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope("shared")
    _, token = create_grant(
        runtime.home.instance,
        "w",
        rights={"shared": Right.READ},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [
        context.Process(target=_worker, args=(str(home), token, queue)) for _ in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    failures = [queue.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert failures == [[]] * PROCESSES
    with runtime.home.scope_db("shared").read() as conn:
        rows = conn.execute("SELECT count(*), count(DISTINCT id) FROM search_log").fetchone()
    assert tuple(rows) == (PROCESSES * CALLS, PROCESSES * CALLS)
    runtime.close()


WRITERS = 4
WRITES = 200


def _creator(home: str, token: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    create = runtime.registry.get("graph.entity_create")
    acknowledged, failures = [], []
    for _ in range(WRITES):
        # Random hex names: no two are similar, so every write must succeed.
        name = uuid.uuid4().hex[:20]
        raw = {"scope": "shared", "type": "organisation", "name": name}
        try:
            out = runtime.invoke(create, raw, principal=principal, channel="api")
            acknowledged.append((out.model_dump(mode="json")["entity"]["id"], name))
        except Exception as exc:  # every failure is reported to the parent, none swallowed
            failures.append(repr(exc))
    runtime.close()
    queue.put((acknowledged, failures))


def test_four_processes_writing_one_scope_lose_nothing(tmp_path: Path) -> None:
    """4 processes × 200 entity creates on one scope file: no `database is locked` or `busy`
    reaches a caller, every acknowledged write is there, and `groundnote check` is clean."""
    home = tmp_path / "home"
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope("shared")
    _, token = create_grant(
        runtime.home.instance,
        "w",
        rights={"shared": Right.PROPOSE},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_creator, args=(str(home), token, queue)) for _ in "abcd"]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert [failures for _, failures in results] == [[]] * WRITERS
    acknowledged = dict(pair for written, _ in results for pair in written)
    assert len(acknowledged) == WRITERS * WRITES
    with runtime.home.scope_db("shared").read() as conn:
        stored = dict(conn.execute("SELECT id, name FROM entity_current").fetchall())
    assert stored == acknowledged
    label = runtime.home.scope_label("shared")
    runtime.close()
    done = subprocess.run(
        [sys.executable, "-m", "groundnote", "--home", str(home), "check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{label}: ok" in done.stdout
