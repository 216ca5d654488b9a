"""Fixtures every test uses: a real home on disk, a scope, an agent's grant, and `call`.

`call(name, **input)` goes through the registry exactly as every surface does (validation,
rights, operation log) and returns the output as JSON-ready data; surface tests use the
fixtures of tests/surfaces/conftest.py for the real transports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import groundnote.runtime
from groundnote.auth import Principal, Right, create_grant
from groundnote.config import Config, load_config
from groundnote.domain.clock import FixedClock
from groundnote.runtime import Runtime, open_runtime

Call = Callable[..., dict[str, Any]]

# The suite runs with semantic search off unless a test asks for it, so every test written
# before embeddings existed shows that the off switch gives today's answers exactly: in this
# process (every runtime's configuration) and, through the environment, in the processes
# tests start. tests/core/test_semantic.py turns it on with GROUNDNOTE_SEARCH__SEMANTIC=on.
SEMANTIC_OFF = {"GROUNDNOTE_SEARCH__SEMANTIC": "off"}
os.environ.update(SEMANTIC_OFF)


def _semantic_off_unless_asked(home: Path, environ: dict[str, str] | None = None) -> Config:
    return load_config(home, {**SEMANTIC_OFF, **(os.environ if environ is None else environ)})


groundnote.runtime.load_config = _semantic_off_unless_asked  # type: ignore[assignment]


@pytest.fixture
def clock() -> FixedClock:
    """A clock the test moves by hand: `clock.moment = ...`."""
    return FixedClock(datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC))


@pytest.fixture
def home_path(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def runtime(home_path: Path, clock: FixedClock) -> Iterator[Runtime]:
    rt = open_runtime(home_path, clock=clock, environ={})
    yield rt
    rt.close()


@pytest.fixture
def scope(runtime: Runtime) -> str:
    runtime.home.create_scope("sales")
    return "sales"


def make_principal(
    runtime: Runtime, name: str, rights: dict[str, Right], channels: list[str]
) -> tuple[Principal, str]:
    _, token = create_grant(
        runtime.home.instance,
        name,
        rights=rights,
        channels=channels,
        org="local",
        now=runtime.home.clock.instant(),
    )
    principal = runtime.authenticate(token)
    assert principal is not None
    return principal, token


@pytest.fixture
def agent_token(runtime: Runtime, scope: str) -> str:
    return make_principal(runtime, "agent", {scope: Right.PROPOSE}, ["mcp", "api", "cli"])[1]


@pytest.fixture
def agent(runtime: Runtime, agent_token: str) -> Principal:
    principal = runtime.authenticate(agent_token)
    assert principal is not None
    return principal


@pytest.fixture
def call(runtime: Runtime, agent: Principal) -> Call:
    def invoke(name: str, /, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=agent, channel=channel)
        return out.model_dump(mode="json")

    return invoke


def mcp_body(result: Any) -> dict[str, Any]:
    """The body of an MCP tool result: an answer's structured content, or a refusal's JSON
    text (refusals carry no structured content; see surfaces/mcp/server.py `error_result`)."""
    if result.is_error:
        assert result.structured_content is None, "a refusal must not carry structured content"
        data: dict[str, Any] = json.loads(result.content[0].text)
        return data
    assert isinstance(result.structured_content, dict)
    return result.structured_content
