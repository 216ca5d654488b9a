"""An MCP session over streamable HTTP belongs to the grant that opened it: another grant
presenting its Mcp-Session-Id is answered as if the session did not exist (a real uvicorn)."""

from __future__ import annotations

import httpx
import pytest

from groundnote.auth import Right
from groundnote.runtime import Runtime
from tests.conftest import make_principal

pytestmark = pytest.mark.slow

ACCEPT = "application/json, text/event-stream"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _headers(token: str, session: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}", "Accept": ACCEPT}
    if session:
        headers["Mcp-Session-Id"] = session
    return headers


def _open(base: str, token: str) -> str:
    response = httpx.post(f"{base}/mcp", json=INITIALIZE, headers=_headers(token))
    assert response.status_code == 200, response.text
    session = response.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(f"{base}/mcp", json=initialized, headers=_headers(token, session))
    return session


def test_another_grant_cannot_use_call_attach_or_delete_a_session(
    live_server: str, runtime: Runtime, scope: str
) -> None:
    _, owner = make_principal(runtime, "owner", {scope: Right.PROPOSE}, ["mcp"])
    _, other = make_principal(runtime, "other", {scope: Right.PROPOSE}, ["mcp"])
    session = _open(live_server, owner)
    url = f"{live_server}/mcp"

    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "status", "arguments": {"scope": scope}},
    }
    for method, body in (("POST", LIST), ("POST", call), ("GET", None), ("DELETE", None)):
        refused = httpx.request(method, url, json=body, headers=_headers(other, session))
        assert refused.status_code == 404, (method, refused.text)
        assert refused.json()["error"] == "not-found"
        assert "initialize" in refused.json()["remedy"]

    # A session id nobody opened is refused alike (by the SDK), so the two cannot be told apart.
    unknown = httpx.post(url, json=LIST, headers=_headers(other, "0" * 32))
    assert unknown.status_code == 404

    # The owner's session is untouched, and the other grant may open its own.
    listed = httpx.post(url, json=LIST, headers=_headers(owner, session))
    assert listed.status_code == 200 and "entity_resolve" in listed.text
    own = _open(live_server, other)
    assert own != session
    assert httpx.post(url, json=LIST, headers=_headers(other, own)).status_code == 200
    assert httpx.request("DELETE", url, headers=_headers(owner, session)).status_code == 200


def test_a_401_points_to_protected_resource_metadata(live_server: str) -> None:
    """RFC 9728: a client learns that a bearer token is expected, and that there is no OAuth
    authorization server to send the person to."""
    refused = httpx.post(f"{live_server}/mcp", json=LIST, headers={"Accept": ACCEPT})
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith("Bearer resource_metadata=")
    url = challenge.split('"')[1]
    assert url == f"{live_server}/.well-known/oauth-protected-resource"
    for path in (url, url + "/mcp"):
        metadata = httpx.get(path).json()
        assert metadata["resource"] == f"{live_server}/mcp"
        assert metadata["bearer_methods_supported"] == ["header"]
        assert metadata["authorization_servers"] == []
    assert "grant create" in refused.json()["remedy"]
