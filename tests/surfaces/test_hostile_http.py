"""Hostile requests against a real uvicorn on loopback (issue 15, items 1–4): each refused
with a 4xx and the usual body, before it costs memory, and never with a 500."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from groundnote.surfaces.http.routes import MAX_BODY_BYTES

CHUNK = b" " * 65536


class Counted:
    """A chunked body of `total` bytes that counts how much of it the server took."""

    def __init__(self, total: int, head: bytes = b"") -> None:
        self.total, self.head, self.sent = total, head, 0

    def __iter__(self) -> Iterator[bytes]:
        if self.head:
            self.sent += len(self.head)
            yield self.head
        while self.sent < self.total:
            self.sent += len(CHUNK)
            yield CHUNK


def _post_streamed(url: str, body: Counted, headers: dict[str, str]) -> int | None:
    """The status, or None when the server closed the connection before answering."""
    try:
        return httpx.post(url, content=iter(body), headers=headers, timeout=60).status_code
    except httpx.HTTPError:
        return None


def test_a_body_without_credentials_is_refused_before_it_is_read(live_server: str) -> None:
    body = Counted(200 * 1024 * 1024)
    status = _post_streamed(live_server + "/v1/entities", body, {})
    assert status == 401
    # The socket buffers take a few MB at most; the 200 MB were never read.
    assert body.sent < 32 * 1024 * 1024


def test_an_oversized_body_is_refused_while_it_streams(live_server: str, agent_token: str) -> None:
    body = Counted(100 * 1024 * 1024, head=b'{"scope": "sales", "name": "')
    headers = {"Authorization": f"Bearer {agent_token}"}
    status = _post_streamed(live_server + "/v1/entities", body, headers)
    assert status in (413, None)
    assert body.sent < MAX_BODY_BYTES + 32 * 1024 * 1024


def _raw_exchange(base: str, request: bytes) -> bytes:
    """Send bytes on a fresh connection and read the answer until the server closes it."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_a_declared_length_above_the_limit_is_refused_at_once(
    live_server: str, agent_token: str
) -> None:
    # Only two bytes follow the header: the answer comes from the declaration alone, and the
    # server closes the connection instead of waiting for the rest.
    request = (
        "POST /v1/entities HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {agent_token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n{{}}"
    ).encode()
    answer = _raw_exchange(live_server, request)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), head
    assert json.loads(body)["error"] == "payload-too-large"


def test_the_impulse_endpoint_counts_its_own_limit_as_bytes_arrive(live_server: str) -> None:
    body = Counted(60 * 1024 * 1024, head=b'{"pointer": {"type": "x", "p": "')
    status = _post_streamed(live_server + "/v2/impulses/resolve", body, {})
    assert status in (400, None)  # the seed's status for a body over its limit
    assert body.sent < 1024 * 1024 + 32 * 1024 * 1024


@pytest.mark.parametrize(
    ("method", "path", "params"),
    [
        ("GET", "/v1/scopes/sales/tree", {"page": "9223372036854775807"}),
        ("GET", "/v1/scopes/sales/tree", {"page": "99999999999999999999999"}),
        ("GET", "/v1/rules", {"scope": "sales", "offset": "1e20"}),
        ("GET", "/v1/rules", {"scope": "sales", "offset": "100000000000000000000"}),
    ],
)
def test_numbers_out_of_range_are_refused(
    live_server: str, agent_token: str, method: str, path: str, params: dict[str, str]
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    response = httpx.request(method, live_server + path, params=params, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "validation-failed"


def test_an_entity_tree_page_out_of_range_is_refused(
    live_server: str, agent_token: str, runtime: object
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    made = httpx.post(
        live_server + "/v1/entities",
        json={"scope": "sales", "type": "customer", "name": "Acme"},
        headers=headers,
    )
    assert made.status_code == 200, made.text
    entity = made.json()["entity"]["id"]
    response = httpx.get(
        f"{live_server}/v1/entities/{entity}/tree",
        params={"scope": "sales", "page": str(2**63 - 1)},
        headers=headers,
    )
    assert response.status_code == 400, response.text


@pytest.mark.parametrize("path", ["/v1/search", "/v2/impulses/resolve"])
@pytest.mark.parametrize("authenticated", [True, False])
def test_deeply_nested_json_is_refused(
    live_server: str, agent_token: str, path: str, authenticated: bool
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"} if authenticated else {}
    for depth in (100, 5000, 100_000):
        body = b'{"pointer": ' + b"[" * depth + b"]" * depth + b"}"
        response = httpx.post(live_server + path, content=body, headers=headers)
        assert 400 <= response.status_code < 500, (depth, response.text)
        assert response.status_code != 500


def test_an_impossible_instant_is_refused(live_server: str, agent_token: str) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    source = {
        "scope": "sales",
        "source": {
            "kind": "mail",
            "id": "mail:<a@example.com>",
            "subject": "Hello",
            "sent_at": "2026-13-01T00:00:00Z",
        },
    }
    response = httpx.post(live_server + "/v1/sources", json=source, headers=headers)
    assert response.status_code == 400, response.text
    assert "not an instant of the calendar" in response.text


# -- item 3: days of the calendar ---------------------------------------------------------


def _stored_mail(base: str, headers: dict[str, str]) -> str:
    source = {
        "scope": "sales",
        "source": {"kind": "mail", "id": "mail:<m1@example.com>", "subject": "Terms"},
    }
    response = httpx.post(base + "/v1/sources", json=source, headers=headers)
    assert response.status_code == 200, response.text
    return "source/mail:<m1@example.com>"


@pytest.mark.parametrize(
    "dates",
    [
        {"valid_from": "2026-02-31"},
        {"valid_from": "0000-00-00"},
        {"valid_from": "2026-01-01", "valid_to": "9999-99-99"},
    ],
)
def test_a_rule_with_an_impossible_day_is_refused(
    live_server: str, agent_token: str, dates: dict[str, str]
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    ref = _stored_mail(live_server, headers)
    rule = {
        "scope": "sales",
        "statement": "Invoices are paid within 30 days.",
        "evidence": {"quote": "30 days", "refs": [ref]},
        **dates,
    }
    response = httpx.post(live_server + "/v1/rules", json=rule, headers=headers)
    assert response.status_code == 400, response.text
    assert "not a day of the calendar" in response.text
    listed = httpx.get(live_server + "/v1/rules", params={"scope": "sales"}, headers=headers)
    assert listed.json()["rules"] == []


def test_search_on_an_impossible_day_is_refused(live_server: str, agent_token: str) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    body = {"scope": "sales", "query": "invoice", "as_of": "2026-99-99"}
    response = httpx.post(live_server + "/v1/search", json=body, headers=headers)
    assert response.status_code == 400, response.text


# -- item 4: names that show what they say ------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["Invoice \u202egnp.exe", "Acme\x00 GmbH", "Acme\u2066 GmbH", "Acme\nGmbH", "Acme\x1b[31m"],
)
def test_a_name_that_hides_or_reorders_text_is_refused(
    live_server: str, agent_token: str, name: str
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    for body in (
        {"scope": "sales", "type": "customer", "name": name},
        {"scope": "sales", "type": "customer", "name": "Acme", "aliases": [name]},
    ):
        response = httpx.post(live_server + "/v1/entities", json=body, headers=headers)
        assert response.status_code == 400, response.text
        assert "send the text without it" in response.text


def test_a_rule_statement_with_a_bidi_override_is_refused(
    live_server: str, agent_token: str
) -> None:
    headers = {"Authorization": f"Bearer {agent_token}"}
    ref = _stored_mail(live_server, headers)
    rule = {
        "scope": "sales",
        "statement": "Pay \u202e00001\u202c EUR at most.",
        "evidence": {"quote": "q", "refs": [ref]},
    }
    response = httpx.post(live_server + "/v1/rules", json=rule, headers=headers)
    assert response.status_code == 400, response.text
