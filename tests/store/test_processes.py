"""Several processes writing one store file: nothing lost, no `database is locked` reaching a caller."""

from __future__ import annotations

import multiprocessing
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
