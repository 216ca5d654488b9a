"""The same input gives the same answer on every surface; refusals are the same body too."""

from __future__ import annotations

import pytest

from groundnote.auth import Right
from groundnote.runtime import Runtime
from tests.conftest import make_principal
from tests.surfaces.conftest import SURFACES, SurfaceCall


@pytest.mark.parametrize("surface", SURFACES)
def test_status_is_the_same_on_every_surface(
    surface: str, surface_call: SurfaceCall, agent_token: str
) -> None:
    ok, direct = surface_call("direct", "core.status", {"scope": "sales"}, agent_token)
    assert ok
    ok, body = surface_call(surface, "core.status", {"scope": "sales"}, agent_token)
    assert ok
    # Each call writes one search_log row, so only the row counts of the log (and of its
    # counts by actor and operation) may differ.
    for answer in (direct, body):
        answer["scopes"][0]["rows"].pop("search_log")
        answer["scopes"][0]["rows"].pop("log_tally")
        answer["scopes"][0].pop("file_bytes")
    assert body == direct
    assert body["scopes"][0]["scope"] == "sales"
    assert {"subsystem": "core", "version": 3, "migrations": 3} in body["scopes"][0][
        "schema_versions"
    ]


@pytest.mark.parametrize("surface", SURFACES)
def test_an_unknown_key_is_refused_on_every_surface(
    surface: str, surface_call: SurfaceCall, agent_token: str
) -> None:
    ok, body = surface_call(
        surface, "core.status", {"scope": "sales", "colour": "red"}, agent_token
    )
    assert not ok
    assert body["error"] == "validation-failed"
    assert body["problems"] == [{"key": "colour", "problem": "unknown key, not allowed"}]
    assert body["remedy"]


@pytest.mark.parametrize("surface", SURFACES)
def test_foreign_and_missing_scopes_get_the_same_refusal(
    surface: str, surface_call: SurfaceCall, runtime: Runtime, scope: str
) -> None:
    runtime.home.create_scope("hr")
    _, token = make_principal(runtime, "outsider", {"hr": Right.READ}, ["mcp", "api", "cli"])
    ok_foreign, foreign = surface_call(surface, "core.status", {"scope": scope}, token)
    ok_missing, missing = surface_call(surface, "core.status", {"scope": "nowhere"}, token)
    assert not ok_foreign and not ok_missing
    assert foreign == missing
    assert foreign["error"] == "scope-not-allowed"


def test_http_refusals_are_byte_identical(http, runtime: Runtime, scope: str) -> None:  # type: ignore[no-untyped-def]
    runtime.home.create_scope("hr")
    _, token = make_principal(runtime, "outsider", {"hr": Right.READ}, ["api"])
    headers = {"Authorization": f"Bearer {token}"}
    foreign = http.get("/v1/status", params={"scope": scope}, headers=headers)
    missing = http.get("/v1/status", params={"scope": "nowhere"}, headers=headers)
    assert foreign.status_code == missing.status_code == 403
    assert foreign.content == missing.content
