"""The same record, with the same content, on every surface; unknown keys refused on each."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundnote.auth import Right
from groundnote.runtime import Runtime
from tests.conftest import make_principal
from tests.knowledge.conftest import commit, write, write_record
from tests.surfaces import conftest as surfaces
from tests.surfaces.conftest import SURFACES, SurfaceCall

# The surfaces' fixtures, used here to demand the same answer from every transport.
anyio_backend = surfaces.anyio_backend
http = surfaces.http
surface_call = surfaces.surface_call


@pytest.fixture
def token(runtime: Runtime, kb: str) -> str:
    return make_principal(runtime, "surfaces", {kb: Right.READ}, ["mcp", "api", "cli"])[1]


@pytest.mark.slow
def test_the_record_is_the_same_on_every_surface(
    repo: Path, kb: str, token: str, surface_call: SurfaceCall
) -> None:
    write(repo, "README.md", "x\n")
    write_record(
        repo,
        "e1-0123456789ab",
        provenance={"origin": "extracted", "derived_from": ["file:README.md", "task:none"]},
    )
    commit(repo, "c")
    answers = {}
    for surface in SURFACES:
        ok, body = surface_call(
            surface, "knowledge_base.record", {"id": "e1-0123456789ab", "scope": kb}, token
        )
        assert ok, (surface, body)
        answers[surface] = body
    assert all(body == answers["direct"] for body in answers.values())
    assert answers["direct"]["derived_from"][1]["reason"] == "`none` is not a task"
    for surface in SURFACES:
        ok, body = surface_call(surface, "knowledge_base.record", {"id": "x", "uri": "y"}, token)
        assert not ok, surface
        assert body["error"] == "validation-failed", (surface, body)


@pytest.mark.slow
def test_validate_says_ok_false_on_every_surface(
    repo: Path, kb: str, token: str, surface_call: SurfaceCall
) -> None:
    write_record(repo, "r", relations=[{"type": "supports", "target": "decision:none"}])
    commit(repo, "c")
    for surface in SURFACES:
        ok, body = surface_call(surface, "knowledge_base.validate", {"scope": kb}, token)
        assert body["ok"] is False, (surface, ok, body)
