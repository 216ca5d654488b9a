"""Three `groundnote serve` processes on one Citus cluster (issue 16, item 2), clients spread
over them: every acknowledged write is in the store, no id is issued twice, a duplicate is
refused whichever server the competing creates reach (the check runs inside the write
transaction on the scope's worker, not in any server's memory), and the scopes are spread over
both workers (read from the coordinator's citus_schemas / citus_shards)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from groundnote.auth import Right, create_grant
from groundnote.runtime import Runtime
from groundnote.store import citus
from tests.surfaces.conftest import free_port

# a cluster on two shared cores: three servers starting and 112 writes take minutes there
pytestmark = [pytest.mark.citus, pytest.mark.slow, pytest.mark.timeout(600)]

SERVERS = 3
SCOPES = ["north", "south", "east", "west"]
WRITERS = 9
WRITES = 12  # per writer
RACES = 4  # names created through all three servers at once


@contextmanager
def serve(home: Path, environ: dict[str, str] | None = None) -> Iterator[str]:
    """A `groundnote serve` process on the home (the test's database URL inherited), its base
    URL once it answers; `environ` adds configuration (GROUNDNOTE_<KEY>)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "groundnote",
        "--home",
        str(home),
        "serve",
        "--port",
        str(port),
    ]
    with subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(environ or {})},
    ) as process:
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                try:
                    httpx.get(f"{base}/openapi.json", timeout=5)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "serve did not answer"
                    time.sleep(0.2)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=30)


def _create(base: str, token: str, scope: str, name: str) -> httpx.Response:
    body = {"scope": scope, "type": "organisation", "name": name}
    return httpx.post(
        f"{base}/v1/entities", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )


def test_three_servers_on_one_cluster(
    runtime: Runtime, home_path: Path, database_url: str | None
) -> None:
    assert database_url is not None
    for scope in SCOPES:
        runtime.home.create_scope(scope)
    _, token = create_grant(
        runtime.home.instance,
        "writers",
        rights={scope: Right.PROPOSE for scope in SCOPES},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    placed = citus.placements(database_url)
    assert placed is not None
    nodes = {node for scope in SCOPES for node in placed[f"scope_{scope}"].nodes}
    assert len(nodes) == 2, placed  # both workers hold scopes
    assert all(len(placed[f"scope_{scope}"].nodes) == 1 for scope in SCOPES), placed

    with ExitStack() as stack:
        servers = [stack.enter_context(serve(home_path)) for _ in range(SERVERS)]

        def writer(number: int) -> list[tuple[str, str, str]]:
            acknowledged = []
            for i in range(WRITES):
                base = servers[(number + i) % SERVERS]
                scope = SCOPES[(number * WRITES + i) % len(SCOPES)]
                name = uuid.uuid4().hex[:20]  # no two alike: every write must succeed
                response = _create(base, token, scope, name)
                assert response.status_code == 200, response.text
                acknowledged.append((scope, response.json()["entity"]["id"], name))
            return acknowledged

        with ThreadPoolExecutor(WRITERS) as pool:
            acknowledged = [row for rows in pool.map(writer, range(WRITERS)) for row in rows]

        refusals = []
        for race in range(RACES):
            scope = SCOPES[race % len(SCOPES)]
            name = f"Vertrieb {uuid.uuid4().hex[:8]}"
            start = threading.Barrier(SERVERS)

            def compete(
                base: str, scope: str = scope, name: str = name, start: threading.Barrier = start
            ) -> httpx.Response:
                start.wait()
                return _create(base, token, scope, name)

            with ThreadPoolExecutor(SERVERS) as pool:
                answers = list(pool.map(compete, servers))
            created = [a for a in answers if a.status_code == 200]
            refused = [a for a in answers if a.status_code != 200]
            assert len(created) == 1, [a.text for a in answers]
            winner = created[0].json()["entity"]["id"]
            assert [a.json()["error"] for a in refused] == ["duplicate-candidate"] * (SERVERS - 1)
            for answer in refused:
                assert [c["id"] for c in answer.json()["candidates"]] == [winner]
            acknowledged.append((scope, winner, name))
            refusals += refused

    assert len(acknowledged) == WRITERS * WRITES + RACES
    assert len({ref for _, ref, _ in acknowledged}) == len(acknowledged)  # no id twice
    for scope in SCOPES:
        with runtime.home.scope_db(scope).read() as conn:
            stored = {
                (r["id"], r["name"]) for r in conn.execute("SELECT id, name FROM entity_current")
            }
        mine = {(ref, name) for s, ref, name in acknowledged if s == scope}
        assert mine == stored, scope
    assert len(refusals) == RACES * (SERVERS - 1)
