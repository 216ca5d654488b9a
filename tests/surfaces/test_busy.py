"""A scope held by another writer past `store.busy_timeout_seconds`: every surface gives the
same `busy` refusal (503 with Retry-After on HTTP), never SQLite's `database is locked` or a
PostgreSQL lock timeout, and nothing of the call is written. The holder here is another
connection, as another process's writer would be: neither SQLite's file lock nor the schema's
gate row cares which process holds it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundnote.runtime import Runtime
from groundnote.store.sql import Connection
from tests.conftest import begin_holding_the_write_lock, raw_connection
from tests.surfaces.conftest import SURFACES, SurfaceCall

TIMEOUT = 0.2


@pytest.fixture
def home_path(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "groundnote.json").write_text(json.dumps({"store": {"busy_timeout_seconds": TIMEOUT}}))
    return home


@pytest.fixture
def held(runtime: Runtime, scope: str) -> Iterator[Connection]:
    """Another writer in the middle of a long transaction on the scope."""
    other = raw_connection(runtime, scope)
    begin_holding_the_write_lock(other)
    yield other
    other.execute("ROLLBACK")
    other.close()


CREATE = {"scope": "sales", "type": "organisation", "name": "Schäfer Logistik AG"}


@pytest.mark.parametrize("surface", SURFACES)
def test_a_held_scope_file_answers_busy_on_every_surface(
    surface: str,
    surface_call: SurfaceCall,
    agent_token: str,
    held: Connection,
    runtime: Runtime,
) -> None:
    ok, body = surface_call(surface, "graph.entity_create", CREATE, agent_token)
    assert not ok
    assert body["error"] == "busy"
    assert "Retry" in body["remedy"] and "store.busy_timeout_seconds" in body["remedy"]
    assert "locked" not in json.dumps(body)
    ok, direct = surface_call("direct", "graph.entity_create", CREATE, agent_token)
    assert body == direct
    held.execute("ROLLBACK")
    held.execute("BEGIN")  # the fixture's ROLLBACK ends this one
    with runtime.home.scope_db("sales").read() as conn:
        assert conn.execute("SELECT count(*) FROM entity").fetchone()[0] == 0


def test_busy_is_503_with_retry_after(http: TestClient, agent_token: str, held: Connection) -> None:
    response = http.post(
        "/v1/entities", json=CREATE, headers={"Authorization": f"Bearer {agent_token}"}
    )
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    assert response.json()["error"] == "busy"


def test_once_the_other_writer_is_done_the_same_call_succeeds(
    http: TestClient, agent_token: str, held: Connection
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    assert http.post("/v1/entities", json=CREATE, headers=headers).status_code == 503
    held.execute("COMMIT")
    held.execute("BEGIN")
    response = http.post("/v1/entities", json=CREATE, headers=headers)
    assert response.status_code == 200, response.json()
    assert response.json()["created"] is True
