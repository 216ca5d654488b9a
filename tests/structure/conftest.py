"""Fixtures of the approval channel: agents' writes, a signed-in person."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from groundnote.auth import Principal, add_person, issue_login_link
from groundnote.runtime import Runtime
from groundnote.surfaces.http import create_app
from tests.structure.helpers import AgentWrites, Approver, csrf_of


@pytest.fixture
def agent_writes(runtime: Runtime, agent: Principal, scope: str) -> AgentWrites:
    return AgentWrites(runtime, agent, scope)


@pytest.fixture
def ruth(runtime: Runtime) -> str:
    add_person(
        runtime.home.instance,
        "ruth",
        email="ruth@example.org",
        org="local",
        now=runtime.home.clock.instant(),
    )
    return "ruth"


@pytest.fixture
def web(runtime: Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(runtime), base_url="http://127.0.0.1:8765") as client:
        yield client


@pytest.fixture
def approver(runtime: Runtime, web: TestClient, ruth: str, scope: str) -> Approver:
    token = issue_login_link(runtime.home.instance, ruth, runtime.home.clock)
    landing = web.get(f"/approval/login?token={token}")
    assert landing.status_code == 200, landing.text
    return Approver(web, csrf_of(web.get("/approval").text))
