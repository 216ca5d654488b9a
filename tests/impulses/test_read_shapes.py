"""Read shapes, and the credit-repair sweep's report."""

from __future__ import annotations

from groundnote.runtime import Runtime
from tests.impulses.conftest import Resolve, rows
from tests.impulses.test_write_shapes import make_concept


def _sig(resolve: Resolve, token: str, pointer_type: str, shape: str) -> str:
    _, body = resolve(
        {"type": "conceptSignatureUpsert_write", "pointer_type": pointer_type, "shape": shape},
        token,
    )
    return str(body["content"]["id"])


def _link(
    resolve: Resolve, token: str, a: str, b: str, edge_type: str, weight: float = 1.0
) -> None:
    status, _ = resolve(
        {
            "type": "conceptLink_write",
            "linkData": {
                "from_concept_id": a,
                "to_concept_id": b,
                "edge_type": edge_type,
                "weight": weight,
            },
        },
        token,
    )
    assert status == 200


def test_related_concepts_both_directions_strongest_first(resolve: Resolve, acme: str) -> None:
    a, b, c = (make_concept(resolve, acme, n) for n in "abc")
    _link(resolve, acme, a, b, "co_occurs", 0.3)
    _link(resolve, acme, c, a, "precedes", 0.9)
    _, body = resolve({"type": "relatedConcepts", "concept_id": a}, acme)
    related = body["content"]["related"]
    assert [(r["concept_id"], r["direction"]) for r in related] == [(c, "in"), (b, "out")]
    assert body["metadata"] == {"shape": "relatedConcepts", "summary": f"2 concepts related to {a}"}
    _, body = resolve({"type": "relatedConcepts", "concept_id": a, "edge_type": "co_occurs"}, acme)
    assert [r["name"] for r in body["content"]["related"]] == ["b"]


def test_cooccurrence_edges_join_signatures(resolve: Resolve, acme: str) -> None:
    mail, invoice, note = (
        _sig(resolve, acme, "mail", "invoice"),
        _sig(resolve, acme, "mail", "reminder"),
        make_concept(resolve, acme, "plain"),
    )
    _link(resolve, acme, mail, invoice, "co_occurs")
    _link(resolve, acme, mail, invoice, "co_occurs")
    _link(resolve, acme, mail, note, "co_occurs")  # not between signatures
    _, body = resolve({"type": "impulseCooccurrenceEdges", "min_count": 2}, acme)
    edges = body["content"]["edges"]
    assert [(e["from_signature"], e["to_signature"], e["count"]) for e in edges] == [
        ("mail:invoice", "mail:reminder", 2)
    ]


def test_usage_stats_and_sequences(resolve: Resolve, acme: str) -> None:
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    for trace, outcome in (("t1", "success"), ("t1", "failure"), ("t2", "success")):
        resolve(
            {
                "type": "conceptUsage_write",
                "usageData": {"concept_id": a, "trace_id": trace, "outcome": outcome},
            },
            acme,
        )
    _, body = resolve({"type": "conceptUsageStats", "concept_id": a}, acme)
    stats = body["content"]
    assert stats["usage_count"] == 3 and stats["credits"] == 2 and stats["distinct_traces"] == 2
    assert stats["by_outcome"] == {"failure": 1, "success": 2}
    resolve(
        {
            "type": "conceptSequence_write",
            "sequenceData": {"concept_ids": [a, b], "trace_id": "t1"},
        },
        acme,
    )
    resolve({"type": "conceptSequence_write", "sequenceData": {"concept_ids": [b]}}, acme)
    _, body = resolve({"type": "conceptSequence", "concept_id": a}, acme)
    assert [s["concept_ids"] for s in body["content"]["sequences"]] == [[a, b]]
    _, body = resolve({"type": "conceptSequence", "trace_id": "t1"}, acme)
    assert len(body["content"]["sequences"]) == 1
    _, body = resolve({"type": "conceptSequence"}, acme)
    assert len(body["content"]["sequences"]) == 2


def test_credit_sweep_is_a_dry_run_by_default(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    a = make_concept(resolve, acme, "a")
    resolve({"type": "concept", "concept_id": a}, acme)  # one load
    for usage in (
        {"trace_id": "trace-real", "activity_execution_id": "ex-1"},  # counts
        {"trace_id": "synthetic-123", "activity_execution_id": "ex-2"},
        {"trace_id": "00000000-0000", "activity_execution_id": "ex-3"},
        {"trace_id": "trace-nobody"},  # unbound: no execution
        {"activity_execution_id": "ex-4"},  # unbound: no trace
        {"trace_id": "trace-real", "activity_execution_id": "ex-5", "outcome": "failure"},
    ):
        resolve({"type": "conceptUsage_write", "usageData": {"concept_id": a, **usage}}, acme)
    assert rows(runtime, "concept")[0]["credits"] == 5

    _, body = resolve({"type": "conceptCreditDecontaminate_write"}, acme)
    report = body["content"]
    assert report["shape"] == "conceptCreditDecontaminationReport"
    assert report["dry_run"] is True and report["concepts_changed"] == 1
    assert report["credits_before"] == 5 and report["credits_after"] == 1
    assert report["usage_rows_discarded"] == {"synthetic": 2, "unbound": 2, "not_success": 1}
    assert report["changes"] == [{"concept_id": a, "credits_before": 5, "credits_after": 1}]
    assert rows(runtime, "concept")[0]["credits"] == 5  # nothing written

    _, body = resolve({"type": "conceptCreditDecontaminate_write", "dry_run": False}, acme)
    assert body["content"]["dry_run"] is False
    assert rows(runtime, "concept")[0]["credits"] == 1


def test_credit_sweep_skips_concepts_below_min_loads(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    a = make_concept(resolve, acme, "never-loaded")
    resolve(
        {"type": "conceptUsage_write", "usageData": {"concept_id": a, "trace_id": "test-x"}}, acme
    )
    _, body = resolve({"type": "conceptCreditDecontaminate_write", "dry_run": False}, acme)
    assert body["content"]["concepts_scanned"] == 0
    _, body = resolve(
        {"type": "conceptCreditDecontaminate_write", "dry_run": False, "min_loads": 0}, acme
    )
    assert body["content"]["concepts_changed"] == 1
    assert rows(runtime, "concept")[0]["credits"] == 0
