"""The resolve endpoint of the served app, on a real uvicorn on loopback; grants in two orgs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from groundnote.auth import Right, create_grant
from groundnote.runtime import Runtime
from groundnote.store.sql import Connection
from tests.surfaces.conftest import live_server

__all__ = ["live_server"]  # the fixture, imported for the tests here

Resolve = Callable[..., tuple[int, dict[str, Any]]]


def grant_token(runtime: Runtime, name: str, org: str, channels: list[str] | None = None) -> str:
    _, token = create_grant(
        runtime.home.instance,
        name,
        rights={"*": Right.PROPOSE},
        channels=channels or ["mcp", "api", "cli"],
        org=org,
        now=runtime.home.clock.instant(),
    )
    return token


@pytest.fixture
def acme(runtime: Runtime) -> str:
    return grant_token(runtime, "acme-agent", "acme")


@pytest.fixture
def globex(runtime: Runtime) -> str:
    return grant_token(runtime, "globex-agent", "globex")


@pytest.fixture
def client(live_server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server) as http_client:
        yield http_client


@pytest.fixture
def resolve(client: httpx.Client) -> Resolve:
    """`resolve(pointer, token=None)` → (status, body); content is parsed when present."""

    def call(
        pointer: dict[str, Any], token: str | None = None, **headers: str
    ) -> tuple[int, dict[str, Any]]:
        sent = {"Authorization": f"Bearer {token}"} if token else {}
        sent.update(headers)
        response = client.post("/v2/impulses/resolve", json={"pointer": pointer}, headers=sent)
        body = response.json()
        if body.get("success"):
            body["content"] = json.loads(body["content"])
        return response.status_code, body

    return call


def insertion_order(conn: Connection) -> str:
    """The rows in the order they were written (PostgreSQL's physical order keeps it for rows
    never updated, which is what these tests read)."""
    return "ctid" if conn.backend == "postgresql" else "rowid"


def rows(runtime: Runtime, table: str, org: str | None = None) -> list[dict[str, Any]]:
    with runtime.home.instance.read() as conn:
        where = " WHERE org_id = ?" if org else ""
        query = f"SELECT * FROM {table}{where} ORDER BY {insertion_order(conn)}"
        return [dict(r) for r in conn.execute(query, (org,) if org else ())]


def count(runtime: Runtime, table: str) -> int:
    with runtime.home.instance.read() as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
