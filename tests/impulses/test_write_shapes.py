"""The seven _write shapes: envelope, `_result`, auditImpulseId, status codes (seed 003)."""

from __future__ import annotations

from typing import Any

import pytest

from groundnote.impulses.concepts import SOURCE_TYPE_DEFAULTS
from groundnote.runtime import Runtime
from tests.impulses.conftest import Resolve, count, rows

AUDITED = [
    "concept_write",
    "concept_create_write",
    "conceptLink_write",
    "conceptSignatureUpsert_write",
    "conceptUsage_write",
    "conceptSequence_write",
]


def make_concept(resolve: Resolve, token: str, name: str = "Invoice reminder") -> str:
    status, body = resolve(
        {"type": "concept_create_write", "conceptData": {"name": name, "shape": "lesson"}}, token
    )
    assert status == 200, body
    return str(body["content"]["id"])


def valid_pointer(shape: str, resolve: Resolve, token: str) -> dict[str, Any]:
    if shape in ("conceptLink_write", "conceptUsage_write", "conceptSequence_write"):
        a, b = make_concept(resolve, token, "a"), make_concept(resolve, token, "b")
    payloads: dict[str, dict[str, Any]] = {
        "concept_write": {"source_type": "document", "content": "Dunning policy\nsecond line"},
        "concept_create_write": {"conceptData": {"name": "x", "shape": "lesson"}},
        "conceptSignatureUpsert_write": {"pointer_type": "mail", "shape": "invoice"},
        "conceptCreditDecontaminate_write": {},
    }
    if shape == "conceptLink_write":
        payloads[shape] = {
            "linkData": {"from_concept_id": a, "to_concept_id": b, "edge_type": "co_occurs"}
        }
    if shape == "conceptUsage_write":
        payloads[shape] = {"usageData": {"concept_id": a, "trace_id": "t-1"}}
    if shape == "conceptSequence_write":
        payloads[shape] = {"sequenceData": {"concept_ids": [a, b, a]}}
    return {"type": shape, **payloads[shape]}


@pytest.mark.parametrize("shape", [*AUDITED, "conceptCreditDecontaminate_write"])
def test_well_formed_write_answers_result_shape(resolve: Resolve, acme: str, shape: str) -> None:
    status, body = resolve(valid_pointer(shape, resolve, acme), acme)
    assert status == 200, body
    assert body["success"] is True
    assert body["metadata"]["shape"] == f"{shape}_result"
    assert body["metadata"]["summary"]
    if shape in AUDITED:
        assert body["metadata"]["auditImpulseId"].startswith("impulse:")
    else:
        assert "auditImpulseId" not in body["metadata"]


@pytest.mark.parametrize(
    ("shape", "field"),
    [
        ("concept_create_write", "conceptData"),
        ("conceptLink_write", "linkData"),
        ("conceptUsage_write", "usageData"),
        ("conceptSequence_write", "sequenceData"),
    ],
)
def test_missing_payload_field_is_400_and_writes_nothing(
    runtime: Runtime, resolve: Resolve, acme: str, shape: str, field: str
) -> None:
    status, body = resolve({"type": shape}, acme)
    assert status == 400
    assert body == {"success": False, "error": f"{field} required for {shape} (a JSON object)."}
    assert count(runtime, "concept") == count(runtime, "impulse") == 0


@pytest.mark.parametrize(
    ("pointer", "names"),
    [
        ({"type": "concept_write", "content": "text"}, "source_type"),
        ({"type": "concept_write", "source_type": "document"}, "content"),
        ({"type": "conceptSignatureUpsert_write", "shape": "invoice"}, "pointer_type"),
        ({"type": "conceptSignatureUpsert_write", "pointer_type": "mail"}, "shape"),
        ({"type": "concept_create_write", "conceptData": {"name": "x"}}, "conceptData.shape"),
        ({"type": "conceptLink_write", "linkData": {"from_concept_id": "a"}}, "to_concept_id"),
        ({"type": "conceptUsage_write", "usageData": {"trace_id": "t"}}, "concept_id"),
        ({"type": "conceptSequence_write", "sequenceData": {"concept_ids": "a"}}, "concept_ids"),
        ({"type": "conceptCreditDecontaminate_write", "dry_run": "later"}, "dry_run"),
        ({"type": "concept_write", "source_type": 3, "content": "x"}, "source_type"),
    ],
)
def test_missing_or_mistyped_pointer_fields_are_400(
    runtime: Runtime, resolve: Resolve, acme: str, pointer: dict[str, Any], names: str
) -> None:
    status, body = resolve(pointer, acme)
    assert status == 400, body
    assert body["success"] is False and names in body["error"]
    assert count(runtime, "concept") == count(runtime, "impulse") == 0


def test_create_then_read_returns_the_created_concept(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    status, created = resolve(
        {
            "type": "concept_create_write",
            "conceptData": {
                "name": "Reminder cadence",
                "shape": "lesson",
                "summary": "every 14 days",
                "priority": 0.9,
                "metadata": {"k": 1},
            },
        },
        acme,
    )
    assert status == 200
    concept = created["content"]
    assert rows(runtime, "concept")[0]["org_id"] == "acme"
    status, read = resolve({"type": "concept", "concept_id": concept["id"]}, acme)
    assert status == 200
    assert read["metadata"]["shape"] == "concept"
    assert read["content"] | {"loads": 0} == concept | {"loads": 0}
    assert read["content"]["loads"] == 1  # resolving a concept counts a load


def test_concept_write_applies_the_source_type_defaults(resolve: Resolve, acme: str) -> None:
    status, body = resolve(
        {"type": "concept_write", "source_type": "code", "content": "def dunning():\n  pass"}, acme
    )
    assert status == 200
    concept = body["content"]
    defaults = SOURCE_TYPE_DEFAULTS["code"]
    assert (concept["shape"], concept["budget"], concept["priority"]) == tuple(defaults)
    assert concept["name"] == "def dunning():"
    status, body = resolve(
        {"type": "concept_write", "source_type": "code", "content": "x", "priority": 0.1}, acme
    )
    assert body["content"]["priority"] == 0.1  # an explicit field wins


def test_concept_write_refuses_an_unknown_source_type(resolve: Resolve, acme: str) -> None:
    status, body = resolve({"type": "concept_write", "source_type": "fax", "content": "x"}, acme)
    assert status == 400
    assert "document" in body["error"] and "fax" in body["error"]


def test_link_against_nonexistent_concepts_is_404(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    a = make_concept(resolve, acme)
    status, body = resolve(
        {
            "type": "conceptLink_write",
            "linkData": {"from_concept_id": a, "to_concept_id": "concept:nope", "edge_type": "x"},
        },
        acme,
    )
    assert status == 404
    assert body["success"] is False and "concept:nope" in body["error"]
    assert count(runtime, "concept_edge") == 0


@pytest.mark.parametrize(
    "pointer",
    [
        {"type": "conceptUsage_write", "usageData": {"concept_id": "concept:nope"}},
        {"type": "conceptSequence_write", "sequenceData": {"concept_ids": ["concept:nope"]}},
        {"type": "concept", "concept_id": "concept:nope"},
        {"type": "relatedConcepts", "concept_id": "concept:nope"},
        {"type": "conceptUsageStats", "concept_id": "concept:nope"},
    ],
)
def test_unknown_concept_is_404(resolve: Resolve, acme: str, pointer: dict[str, Any]) -> None:
    status, body = resolve(pointer, acme)
    assert status == 404 and body["success"] is False


def test_link_updates_the_weight_by_ema(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    link = {"from_concept_id": a, "to_concept_id": b, "edge_type": "co_occurs"}
    _, first = resolve({"type": "conceptLink_write", "linkData": {**link, "weight": 0.5}}, acme)
    assert first["content"]["created"] is True and first["content"]["weight"] == 0.5
    _, second = resolve({"type": "conceptLink_write", "linkData": {**link, "weight": 1.0}}, acme)
    edge = second["content"]
    assert edge["created"] is False and edge["id"] == first["content"]["id"]
    assert edge["weight"] == pytest.approx(0.2 * 1.0 + 0.8 * 0.5)
    assert edge["count"] == 2
    assert len(rows(runtime, "concept_edge")) == 1


def test_ema_alpha_comes_from_config(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    runtime.config.impulses.ema_alpha = 0.5
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    link = {"from_concept_id": a, "to_concept_id": b, "edge_type": "t", "weight": 0.0}
    resolve({"type": "conceptLink_write", "linkData": link}, acme)
    _, body = resolve({"type": "conceptLink_write", "linkData": {**link, "weight": 1.0}}, acme)
    assert body["content"]["weight"] == pytest.approx(0.5)


def test_signature_upsert_is_idempotent(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    pointer = {"type": "conceptSignatureUpsert_write", "pointer_type": "mail", "shape": "invoice"}
    _, first = resolve(pointer, acme)
    _, second = resolve(pointer, acme)
    assert first["content"]["created"] is True
    assert second["content"] == {"id": first["content"]["id"], "created": False}
    assert len(rows(runtime, "concept")) == 1
    concept = rows(runtime, "concept")[0]
    assert (concept["signature_pointer_type"], concept["signature_shape"]) == ("mail", "invoice")


def test_usage_and_sequence_rows(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    _, usage = resolve(
        {
            "type": "conceptUsage_write",
            "usageData": {"concept_id": a, "trace_id": "tr-9", "activity_execution_id": "ex-1"},
        },
        acme,
    )
    assert usage["content"]["outcome"] == "success" and usage["content"]["org_id"] == "acme"
    _, seq = resolve(
        {
            "type": "conceptSequence_write",
            "sequenceData": {"concept_ids": [b, a], "trace_id": "tr-9"},
        },
        acme,
    )
    assert seq["content"]["concept_ids"] == [b, a]
    credits = {r["id"]: r["credits"] for r in rows(runtime, "concept", "acme")}
    assert credits[a] == 1
