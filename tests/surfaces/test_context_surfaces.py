"""A bound content project answers the same on every surface, and only through its scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundnote.auth import LOCAL_OPERATOR, Right
from groundnote.runtime import Runtime
from tests.conftest import make_principal
from tests.context.project import write_project
from tests.surfaces.conftest import SURFACES, SurfaceCall


@pytest.fixture
def bound(runtime: Runtime, scope: str, tmp_path: Path) -> str:
    project = write_project(tmp_path / "site")
    for name, raw in (
        ("context.up", {"path": str(project)}),
        ("context.bind", {"path": str(project), "scope": scope}),
    ):
        runtime.invoke(runtime.registry.get(name), raw, principal=LOCAL_OPERATOR, channel="cli")
    return scope


@pytest.mark.parametrize("surface", SURFACES)
def test_context_search_is_the_same_on_every_surface(
    surface: str, surface_call: SurfaceCall, agent_token: str, bound: str
) -> None:
    raw = {"scope": bound, "term": "e-mail", "at": "2027-02-01T00:00:00Z", "market": "US"}
    ok, direct = surface_call("direct", "context.search", raw, agent_token)
    assert ok, direct
    ok, body = surface_call(surface, "context.search", raw, agent_token)
    assert ok, body
    assert body == direct
    words = {t["term"]: t["status"] for t in body["concepts"][0]["projects"][0]["terms"]}
    assert words["e-mail"] == "deprecated" and words["email"] == "preferred"


@pytest.mark.parametrize("surface", ["http", "mcp"])
def test_a_project_of_a_foreign_scope_gets_the_scope_refusal(
    surface: str, surface_call: SurfaceCall, runtime: Runtime, bound: str
) -> None:
    runtime.home.create_scope("hr")
    _, token = make_principal(runtime, "outsider", {"hr": Right.READ}, ["mcp", "api"])
    ok, body = surface_call(surface, "context.search", {"scope": bound, "term": "email"}, token)
    assert not ok and body["error"] == "scope-not-allowed"
    # Naming no scope finds nothing bound where the grant reaches, and says how to bind.
    ok, body = surface_call(surface, "context.search", {"term": "email"}, token)
    assert not ok and body["error"] == "not-found" and "context bind" in body["remedy"]
    ok, listed = surface_call(surface, "context.projects", {}, token)
    assert ok and listed["projects"] == []


@pytest.mark.parametrize("surface", ["http", "mcp"])
def test_no_agent_surface_takes_a_directory(
    surface: str, surface_call: SurfaceCall, agent_token: str, bound: str, tmp_path: Path
) -> None:
    raw = {"scope": bound, "term": "email", "path": str(tmp_path)}
    ok, body = surface_call(surface, "context.search", raw, agent_token)
    assert not ok and body["error"] == "validation-failed"
    assert body["problems"] == [{"key": "path", "problem": "unknown key, not allowed"}]
