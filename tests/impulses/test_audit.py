"""conceptUpkeepAuditLog: one per mutating write, never for the credit sweep, non-blocking."""

from __future__ import annotations

import json
import logging

import pytest

from groundnote.runtime import Runtime
from tests.impulses.conftest import Resolve, count, rows
from tests.impulses.test_write_shapes import AUDITED, make_concept, valid_pointer


@pytest.mark.parametrize("shape", AUDITED)
def test_each_mutating_write_records_one_audit_impulse(
    runtime: Runtime, resolve: Resolve, acme: str, shape: str
) -> None:
    pointer = valid_pointer(shape, resolve, acme)
    before = count(runtime, "impulse")
    _, body = resolve(pointer, acme, **{"X-Activity-Execution-Id": "exec-42"})
    impulses = rows(runtime, "impulse")
    assert len(impulses) == before + 1
    audit = impulses[-1]
    assert audit["id"] == body["metadata"]["auditImpulseId"]
    assert audit["shape"] == "conceptUpkeepAuditLog"
    assert audit["org_id"] == "acme" and audit["expires_at"] is None
    assert audit["created_by_resolver_id"] == shape
    assert audit["created_by_activity_id"] == "exec-42"
    record = json.loads(audit["pointer"])
    result_id = body["content"]["id"]
    assert record == {
        "operation": record["operation"],
        "target_table": record["target_table"],
        "target_ids": [result_id],
        "request_body": record["request_body"],
        "result_id": result_id,
        "performed_by": "grant:acme-agent",
        "org_id": "acme",
        "performed_at": "2026-11-30T09:00:00.000Z",
    }
    assert record["operation"] in ("create", "upsert")
    payload_field = {k: v for k, v in pointer.items() if k != "type"}
    submitted = next(iter(payload_field.values())) if len(payload_field) == 1 else payload_field
    assert all(record["request_body"][k] == v for k, v in submitted.items())
    assert audit["summary"] == f"{shape} → {record['target_table']} ({result_id})"


def test_the_credit_sweep_records_no_audit(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    status, body = resolve({"type": "conceptCreditDecontaminate_write", "dry_run": False}, acme)
    assert status == 200 and "auditImpulseId" not in body["metadata"]
    assert count(runtime, "impulse") == 0


@pytest.mark.sqlite_only("breaks the audit with a TEMP TRIGGER, which only SQLite has")
def test_a_failed_audit_is_logged_and_never_rolls_back_the_write(
    runtime: Runtime, resolve: Resolve, acme: str, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = make_concept(resolve, acme, "a"), make_concept(resolve, acme, "b")
    with runtime.home.instance.write() as conn:
        conn.execute(
            "CREATE TEMP TRIGGER audit_breaks BEFORE INSERT ON main.impulse "
            "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
        )
    impulses = count(runtime, "impulse")
    with caplog.at_level(logging.ERROR, logger="groundnote.impulses"):
        status, body = resolve(
            {
                "type": "conceptLink_write",
                "linkData": {"from_concept_id": a, "to_concept_id": b, "edge_type": "t"},
            },
            acme,
        )
    assert status == 200
    assert body["metadata"]["auditImpulseId"] is None
    assert len(rows(runtime, "concept_edge")) == 1
    assert count(runtime, "impulse") == impulses
    failed = [r for r in caplog.records if "[audit-failed]" in r.getMessage()]
    assert len(failed) == 1 and "conceptLink_write" in failed[0].getMessage()


def test_audit_retention_sets_expires_at(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    runtime.config.impulses.audit_ttl_seconds = 3600
    make_concept(resolve, acme)
    assert rows(runtime, "impulse")[0]["expires_at"] == "2026-11-30T10:00:00.000Z"
