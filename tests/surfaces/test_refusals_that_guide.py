"""Refusals a newcomer meets first, each saying what it is and what to do.

A wrong token (unknown, revoked, expired) is told apart from a missing one, over HTTP, MCP
over HTTP, MCP over stdio and the command line; a scope typo offers the grant's own scopes
close to it and never one the grant cannot read, while a foreign and a missing scope still
look the same; `grant create` refuses a scope that does not exist; a grant on the decision
route is told that decisions belong to people and where the approval page is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from groundnote.auth import Right, create_grant, revoke_grant
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from tests.conftest import make_principal
from tests.surfaces.conftest import SURFACES, SurfaceCall

WRONG = "The token is unknown, revoked or expired."
MCP_PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def dead_tokens(runtime: Runtime, scope: str) -> dict[str, str]:
    """A token of no grant, of a revoked grant and of an expired one."""
    now = runtime.home.clock.instant()
    _, revoked = create_grant(
        runtime.home.instance,
        "revoked",
        rights={scope: Right.READ},
        channels=["mcp", "api", "cli"],
        org="local",
        now=now,
    )
    revoke_grant(runtime.home.instance, "revoked", now)
    _, expired = create_grant(
        runtime.home.instance,
        "expired",
        rights={scope: Right.READ},
        channels=["mcp", "api", "cli"],
        org="local",
        now=now,
        expires_at="2026-01-01T00:00:00.000Z",
    )
    return {"unknown": "gn_" + "x" * 43, "revoked": revoked, "expired": expired}


@pytest.mark.parametrize("which", ["unknown", "revoked", "expired"])
def test_a_wrong_token_is_not_a_missing_one_over_http(
    http: TestClient, dead_tokens: dict[str, str], which: str
) -> None:
    wrong = http.get("/v1/scopes", headers={"Authorization": f"Bearer {dead_tokens[which]}"})
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "auth-required" and wrong.json()["message"] == WRONG
    assert "grant list" in wrong.json()["remedy"]
    missing = http.get("/v1/scopes")
    assert missing.status_code == 401 and missing.json()["message"] != WRONG
    assert "needs credentials" in missing.json()["message"]


@pytest.mark.parametrize("which", ["unknown", "revoked", "expired"])
def test_a_wrong_token_is_not_a_missing_one_on_the_mcp_endpoint(
    http: TestClient, dead_tokens: dict[str, str], which: str
) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {dead_tokens[which]}"}
    wrong = http.post("/mcp", json=MCP_PING, headers=headers)
    assert wrong.status_code == 401 and wrong.json()["message"] == WRONG
    missing = http.post("/mcp", json=MCP_PING, headers=MCP_HEADERS)
    assert missing.status_code == 401
    assert missing.json()["message"] == "The MCP endpoint needs a bearer token."
    assert "client configuration" in missing.json()["remedy"]


def test_a_wrong_token_on_stdio_and_the_command_line(
    home_path: Path, dead_tokens: dict[str, str]
) -> None:
    runner = CliRunner()
    home = ["--home", str(home_path)]
    for token in dead_tokens.values():
        stdio = runner.invoke(cli, [*home, "mcp", "--token", token])
        assert stdio.exit_code == 2 and WRONG in stdio.stderr
        command = runner.invoke(cli, [*home, "--token", token, "scopes"])
        assert command.exit_code == 1 and WRONG in command.stderr
    none = runner.invoke(cli, [*home, "mcp"], env={"GROUNDNOTE_TOKEN": ""})
    assert none.exit_code == 2 and "a token is needed" in none.stderr and WRONG not in none.stderr


@pytest.mark.parametrize("surface", SURFACES)
def test_a_scope_typo_offers_the_grants_close_scopes_and_no_others(
    surface: str, surface_call: SurfaceCall, runtime: Runtime, agent_token: str
) -> None:
    runtime.home.create_scope("salez")  # foreign: the agent's grant names only sales
    runtime.home.create_scope("sales-eu")
    _, token = make_principal(
        runtime,
        "both",
        {"sales": Right.READ, "sales-eu": Right.READ},
        ["mcp", "api", "cli"],
    )
    ok, body = surface_call(surface, "core.status", {"scope": "slaes"}, token)
    assert not ok and body["error"] == "scope-not-allowed"
    assert body["close_scopes"] == ["sales"]
    assert "Did you mean sales?" in body["remedy"]
    assert "salez" not in json.dumps(body)  # close, existing, but not the grant's
    ok, body = surface_call(surface, "core.status", {"scope": "sales-ue"}, token)
    assert body["close_scopes"] == ["sales-eu"]
    ok, body = surface_call(surface, "core.status", {"scope": "kantine"}, agent_token)
    assert "close_scopes" not in body and body["remedy"].startswith("Use a scope your grant")


@pytest.mark.parametrize("surface", SURFACES)
def test_foreign_and_missing_still_look_the_same_with_suggestions(
    surface: str, surface_call: SurfaceCall, runtime: Runtime, agent_token: str
) -> None:
    ok, missing = surface_call(surface, "core.status", {"scope": "salez"}, agent_token)
    runtime.home.create_scope("salez")
    ok_foreign, foreign = surface_call(surface, "core.status", {"scope": "salez"}, agent_token)
    assert not ok and not ok_foreign
    assert foreign == missing
    assert foreign["close_scopes"] == ["sales"]


def test_grant_create_refuses_a_scope_that_does_not_exist(
    runtime: Runtime, home_path: Path, scope: str
) -> None:
    runner = CliRunner()
    home = ["--home", str(home_path)]
    typo = runner.invoke(cli, [*home, "grant", "create", "claude", "--scope", "slaes:propose"])
    assert typo.exit_code == 1
    said = " ".join(typo.stderr.split())
    assert "No scope named slaes exists" in said and "did you mean sales?" in said
    assert "--allow-missing-scopes" in said
    assert "claude" not in runner.invoke(cli, [*home, "grant", "list"]).stdout
    later = runner.invoke(
        cli,
        [*home, "grant", "create", "claude", "--scope", "hr:read", "--allow-missing-scopes"],
    )
    assert later.exit_code == 0 and "created grant:claude" in later.stdout
    every = runner.invoke(cli, [*home, "grant", "create", "ops", "--scope", f"*:read,{scope}:read"])
    assert every.exit_code == 0, every.output


def test_a_grant_on_the_decision_route_is_sent_to_the_approval_page(
    http: TestClient, runtime: Runtime, scope: str
) -> None:
    _, token = make_principal(runtime, "integration", {scope: Right.DECIDE}, ["api"])
    response = http.post(
        "/v1/rules/sales-0001/decision",
        json={"scope": scope, "verdict": "adopt"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "channel-not-allowed"
    assert "decisions belong to people" in body["message"]
    assert body["approval_url"] == "http://127.0.0.1:8765/approval"
    assert "http://127.0.0.1:8765/approval" in body["remedy"]
    wrong = http.post(
        "/v1/rules/sales-0001/decision",
        json={"scope": scope, "verdict": "adopt"},
        headers={"Authorization": "Bearer gn_nothing"},
    )
    assert wrong.status_code == 401 and wrong.json()["message"] == WRONG
