"""The impulse routes are mounted in the served app, beside the derived ones."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_discovery_is_anonymous_and_writes_need_credentials(
    http: TestClient, agent_token: str
) -> None:
    discovery = http.get("/v2/discovery")
    assert discovery.status_code == 200
    body = {"pointer": {"type": "conceptLink_write"}}
    refused = http.post("/v2/impulses/resolve", json=body)
    assert refused.status_code == 401
    assert "AUTH_REQUIRED" in refused.text
    shapes = http.get("/openapi.json").json()["paths"]
    assert "/v2/impulses/resolve" in shapes and "/v2/discovery" in shapes
