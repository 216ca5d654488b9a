"""Bad requests get the seed's 400 envelope and write nothing."""

from __future__ import annotations

import httpx
import pytest

from groundnote.runtime import Runtime
from tests.impulses.conftest import count, insertion_order


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"not json", "not JSON"),
        (b"[]", "pointer"),
        (b'{"pointer": "concept"}', "pointer"),
        (b'{"pointer": {"type": "concept"}, "extra": 1}', "nothing else"),
        (b'{"pointer": {}}', "pointer.type"),
        (b'{"pointer": {"type": 7}}', "pointer.type"),
        (b'{"pointer": {"type": "noSuchShape"}}', "Unknown shape 'noSuchShape'"),
        (b'{"pointer": {"type": "conceptUpkeepAuditLog"}}', "Unknown shape"),
        (b'{"pointer": {"type": "conceptLink_write", "linkData": []}}', "linkData required"),
        (
            b'{"pointer": {"type": "conceptLink_write", "linkData": {"from_concept_id": 1,'
            b' "to_concept_id": "x", "edge_type": "t"}}}',
            "linkData.from_concept_id",
        ),
        (
            b'{"pointer": {"type": "conceptUsage_write", "usageData": {"concept_id": "x"},'
            b' "other": 1}}',
            "unknown: other",
        ),
        (
            b'{"pointer": {"type": "relatedConcepts", "concept_id": "x", "limit": "many"}}',
            "pointer.limit",
        ),
        (
            b'{"pointer": {"type": "conceptUsage_write", "usageData": {"concept_id": "x",'
            b' "outcome": "great"}}}',
            "usageData.outcome",
        ),
    ],
)
def test_bad_pointer_is_400(
    runtime: Runtime, client: httpx.Client, acme: str, body: bytes, needle: str
) -> None:
    response = client.post(
        "/v2/impulses/resolve",
        content=body,
        headers={"Authorization": f"Bearer {acme}", "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    answer = response.json()
    assert answer["success"] is False and needle in answer["error"], answer
    assert count(runtime, "concept") == count(runtime, "impulse") == 0


def test_unknown_shape_lists_the_supported_shapes(client: httpx.Client, acme: str) -> None:
    response = client.post(
        "/v2/impulses/resolve",
        json={"pointer": {"type": "nope"}},
        headers={"Authorization": f"Bearer {acme}"},
    )
    assert "conceptLink_write" in response.json()["supported_shapes"]


def test_oversized_body_is_400(runtime: Runtime, client: httpx.Client, acme: str) -> None:
    limit = runtime.config.impulses.max_body_bytes
    content = "x" * limit
    response = client.post(
        "/v2/impulses/resolve",
        json={"pointer": {"type": "concept_write", "source_type": "document", "content": content}},
        headers={"Authorization": f"Bearer {acme}"},
    )
    assert response.status_code == 400
    assert f"the limit is {limit}" in response.json()["error"]
    assert count(runtime, "concept") == 0


def test_every_call_leaves_one_operation_log_row(
    runtime: Runtime, client: httpx.Client, acme: str
) -> None:
    headers = {"Authorization": f"Bearer {acme}"}
    client.post("/v2/impulses/resolve", json={"pointer": {"type": "nope"}}, headers=headers)
    client.post(
        "/v2/impulses/resolve",
        json={
            "pointer": {"type": "conceptSignatureUpsert_write", "pointer_type": "a", "shape": "b"}
        },
        headers=headers,
    )
    client.post("/v2/impulses/resolve", json={"pointer": {"type": "conceptSequence"}})
    with runtime.home.instance.read() as conn:
        logged = [
            (r["grant_id"], r["outcome"], r["stages"])
            for r in conn.execute(
                "SELECT * FROM search_log WHERE operation = 'impulses.resolve' "
                f"ORDER BY {insertion_order(conn)}"
            )
        ]
    assert logged == [
        ("grant:acme-agent", "validation-failed", '{"shape": "nope"}'),
        ("grant:acme-agent", "ok", '{"shape": "conceptSignatureUpsert_write"}'),
        ("anonymous", "ok", '{"shape": "conceptSequence"}'),
    ]
