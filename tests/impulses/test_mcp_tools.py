"""The MCP tools and the write shapes run the same operations: one learning workload both
ways gives identical concept_edge rows."""

from __future__ import annotations

from typing import Any

from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.impulses.conftest import Resolve, rows

SIGNATURES = [("mail", "invoice"), ("mail", "reminder"), ("doc", "contract")]
LINKS = [(0, 1, 1.0), (0, 1, 0.5), (1, 2, 0.8), (0, 1, 0.2), (2, 0, 0.6), (1, 2, 0.1)]


def edges_by_signature(runtime: Runtime, org: str) -> list[tuple[Any, ...]]:
    with runtime.home.instance.read() as conn:
        found = conn.execute(
            "SELECT a.signature_pointer_type, a.signature_shape, b.signature_pointer_type, "
            "b.signature_shape, e.edge_type, e.weight, e.count, e.metadata, e.created_at, "
            "e.updated_at FROM concept_edge e JOIN concept a ON a.id = e.from_concept_id "
            "JOIN concept b ON b.id = e.to_concept_id WHERE e.org_id = ? ORDER BY 1, 2, 3, 4",
            (org,),
        ).fetchall()
    return [tuple(r) for r in found]


def test_tools_and_write_shapes_learn_the_same_edges(
    runtime: Runtime, call: Call, resolve: Resolve, acme: str
) -> None:
    tool_ids = []
    for pointer_type, shape in SIGNATURES:
        out = call("impulses.concept_upsert_by_signature", pointer_type=pointer_type, shape=shape)
        again = call("impulses.concept_upsert_by_signature", pointer_type=pointer_type, shape=shape)
        assert (out["created"], again["created"], again["id"]) == (True, False, out["id"])
        tool_ids.append(out["id"])
    for a, b, weight in LINKS:
        out = call(
            "impulses.concept_link",
            from_concept_id=tool_ids[a],
            to_concept_id=tool_ids[b],
            edge_type="co_occurs",
            weight=weight,
        )
        assert out["audit_impulse_id"].startswith("impulse:")

    shape_ids = []
    for pointer_type, shape in SIGNATURES:
        for _ in range(2):
            _, body = resolve(
                {
                    "type": "conceptSignatureUpsert_write",
                    "pointer_type": pointer_type,
                    "shape": shape,
                },
                acme,
            )
        shape_ids.append(body["content"]["id"])
    for a, b, weight in LINKS:
        status, _ = resolve(
            {
                "type": "conceptLink_write",
                "linkData": {
                    "from_concept_id": shape_ids[a],
                    "to_concept_id": shape_ids[b],
                    "edge_type": "co_occurs",
                    "weight": weight,
                },
            },
            acme,
        )
        assert status == 200

    by_tools = edges_by_signature(runtime, "local")
    assert len(by_tools) == 3
    assert by_tools == edges_by_signature(runtime, "acme")
    audits = [
        r for r in rows(runtime, "impulse") if r["created_by_resolver_id"] == "conceptLink_write"
    ]
    assert len(audits) == 2 * len(LINKS)


def test_other_tools_write_in_the_callers_org(runtime: Runtime, call: Call) -> None:
    created = call(
        "impulses.concept_create",
        concept={"name": "Dunning", "shape": "lesson", "scope": "project"},
    )
    concept = created["concept"]
    assert concept["org_id"] == "local" and concept["scope"] == "project"
    usage = call("impulses.concept_record_usage", concept_id=concept["id"], trace_id="t")
    assert usage["usage"]["org_id"] == "local"
    sequence = call("impulses.concept_sequence_record", concept_ids=[concept["id"]])
    assert sequence["sequence"]["concept_ids"] == [concept["id"]]
    assert len(rows(runtime, "impulse", "local")) == 3
