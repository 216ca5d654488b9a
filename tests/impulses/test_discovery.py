"""Discovery equals dispatch both ways; the roundtrip from discovery to a write."""

from __future__ import annotations

from typing import Any

import httpx

from groundnote.impulses.shapes import DISPATCH, PRIVATE_SHAPES, SHAPES, check_shape_dispatch
from groundnote.runtime import Runtime
from tests.impulses.conftest import rows


def discover(runtime: Runtime) -> dict[str, Any]:
    cap = runtime.registry.get("impulses.discovery")
    return runtime.invoke(cap, {}, principal=None, channel="api").model_dump(mode="json")


def test_discovery_equals_dispatch_both_ways(runtime: Runtime) -> None:
    record = discover(runtime)
    assert check_shape_dispatch(record["shapes"], DISPATCH, PRIVATE_SHAPES) == []
    assert set(record["shapes"]) == set(DISPATCH)
    assert "conceptUpkeepAuditLog" not in record["shapes"]
    assert "conceptUpkeepAuditLog" not in DISPATCH
    assert {n for n in record["shapes"] if n.endswith("_write")} == {
        s.name for s in SHAPES if s.kind == "write"
    }
    assert len([s for s in SHAPES if s.kind == "write"]) == 7


def test_the_check_finds_drift_both_ways() -> None:
    advertised = [*DISPATCH, "concept_update_write"]
    assert check_shape_dispatch(advertised, DISPATCH, PRIVATE_SHAPES) == [
        "concept_update_write is advertised but has no dispatch entry"
    ]
    shown = [n for n in DISPATCH if n != "conceptLink_write"]
    assert check_shape_dispatch(shown, DISPATCH, PRIVATE_SHAPES) == [
        "conceptLink_write is dispatched but neither advertised nor marked private"
    ]
    assert check_shape_dispatch(shown, DISPATCH, ["conceptLink_write"]) == []


def test_discovery_record(runtime: Runtime) -> None:
    record = discover(runtime)
    assert record["vessel_id"] == "groundnote"
    assert record["resolve_endpoint"] == "/v2/impulses/resolve"
    assert record["resolve_request_format"] == "pointer"
    assert record["auth_scheme"] == "bearer"
    assert record["anonymous_shapes"] == [
        "relatedConcepts",
        "impulseCooccurrenceEdges",
        "conceptUsageStats",
        "conceptSequence",
    ]
    assert record["base_url"] == "http://127.0.0.1:8765"


def test_roundtrip_from_discovery_to_a_write(
    runtime: Runtime, client: httpx.Client, acme: str
) -> None:
    record = discover(runtime)
    assert "concept_create_write" in record["shapes"]
    response = client.post(
        record["resolve_endpoint"],
        json={
            "pointer": {
                "type": "concept_create_write",
                "conceptData": {"name": "found", "shape": "lesson"},
            }
        },
        headers={"Authorization": f"Bearer {acme}"},
    )
    assert response.status_code == 200
    assert response.json()["metadata"]["shape"] == "concept_create_write_result"
    assert [r["name"] for r in rows(runtime, "concept", "acme")] == ["found"]
