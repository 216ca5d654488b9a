"""Load a stranger can cause, against a real uvicorn on loopback (issue 15, items 7–8):
refused anonymous calls write nothing, bad login links take no write gate, failed
credentials are throttled per address, and connections that send no request head are closed.
"""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from groundnote.runtime import Runtime

LIMIT = 5


@pytest.fixture(autouse=True)
def strict(runtime: Runtime, request: pytest.FixtureRequest) -> None:
    """Set before the server of `live_server` is built, which reads the config then. Only
    the throttle's own test keeps the low limit; the others send more refusals than it."""
    throttled = "throttled" in request.node.name
    runtime.config.server.auth_failures_per_minute = LIMIT if throttled else 1000
    runtime.config.server.header_timeout_seconds = 0.5


def _log_rows(runtime: Runtime) -> int:
    with runtime.home.instance.read() as conn:
        return int(conn.execute("SELECT count(*) FROM search_log").fetchone()[0])


def test_refused_anonymous_calls_write_nothing(
    runtime: Runtime, scope: str, live_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    before = _log_rows(runtime)
    for _ in range(30):
        assert httpx.get(live_server + "/v1/scopes").status_code == 401
        response = httpx.post(live_server + "/v2/impulses/resolve", json={"pointer": {}})
        assert response.status_code in (400, 401)
    assert _log_rows(runtime) == before
    told = [r for r in caplog.records if r.name == "groundnote.refused"]
    assert 1 <= len(told) <= 10  # told to the process log, sampled


def test_a_bad_login_link_takes_no_write_gate(runtime: Runtime, live_server: str) -> None:
    """While another writer holds instance.db's write gate, a bad login link is still
    answered: it is checked with a read."""
    holding, answered = threading.Event(), threading.Event()

    def writer() -> None:
        with runtime.home.instance.write():
            holding.set()
            answered.wait(timeout=60)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert holding.wait(timeout=30)
        response = httpx.get(live_server + "/approval/login", params={"token": "bad"}, timeout=30)
        assert response.status_code == 401
    finally:
        answered.set()
        thread.join()


def test_failed_credentials_are_throttled_per_address(
    runtime: Runtime, live_server: str, agent_token: str
) -> None:
    with httpx.Client(base_url=live_server) as client:
        for i in range(LIMIT):
            bad = {"Authorization": f"Bearer wrong-{i}"}
            assert client.get("/v1/scopes", headers=bad).status_code == 401
        throttled = client.get("/v1/scopes", headers={"Authorization": "Bearer wrong"})
        assert throttled.status_code == 429
        assert throttled.json()["error"] == "too-many-attempts"
        assert 1 <= int(throttled.headers["Retry-After"]) <= 60
        login = client.get("/approval/login", params={"token": "guess"})
        assert login.status_code == 429


def test_good_credentials_are_never_counted(
    runtime: Runtime, live_server: str, agent_token: str
) -> None:
    good = {"Authorization": f"Bearer {agent_token}"}
    with httpx.Client(base_url=live_server) as client:
        for _ in range(LIMIT * 4):
            assert client.get("/v1/scopes", headers=good).status_code == 200


def _closed_by_server(base: str, send: bytes) -> bool:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        if send:
            conn.sendall(send)
        try:
            return conn.recv(1024) == b""
        except TimeoutError:
            return False


def test_a_connection_that_sends_nothing_is_closed(live_server: str) -> None:
    assert _closed_by_server(live_server, b"")


def test_a_request_head_that_never_ends_is_closed(live_server: str) -> None:
    assert _closed_by_server(live_server, b"GET /v1/scopes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
