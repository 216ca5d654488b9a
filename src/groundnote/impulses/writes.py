"""The seven write operations, and `perform`: one transaction, its audit impulse, its events.

The write shapes of the resolve endpoint and the MCP tools both call `perform` with the same
operation, so they cannot drift. Every operation except the credit sweep records one
`conceptUpkeepAuditLog` impulse inside the write's transaction, behind a savepoint: when the
audit insert fails, the failure is logged, the id is None, and the write still commits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from groundnote.capabilities import Context
from groundnote.impulses.concepts import create_concept, create_from_source, upsert_by_signature
from groundnote.impulses.edges import link_concepts
from groundnote.impulses.events import lifecycle
from groundnote.impulses.models import (
    ConceptFromSource,
    CreateConceptRequest,
    DecontaminateRequest,
    LinkData,
    SequenceData,
    SignatureUpsertRequest,
    UsageData,
)
from groundnote.impulses.session import Session
from groundnote.impulses.table import insert_impulse, instant_after
from groundnote.impulses.usage import decontaminate_credits, record_sequence, record_usage

__all__ = [
    "AUDIT_SHAPE",
    "WRITE_OPS",
    "Caller",
    "WriteOp",
    "WriteOutcome",
    "caller_of",
    "perform",
]

log = logging.getLogger("groundnote.impulses")

AUDIT_SHAPE = "conceptUpkeepAuditLog"


@dataclass(frozen=True)
class Caller:
    """Who writes: the org comes from the credential, the actor is recorded as performed_by."""

    org: str
    actor: str
    activity_id: str | None = None


@dataclass(frozen=True)
class WriteOp:
    shape: str
    payload_field: str | None  # the pointer field holding the payload; None: the pointer itself
    model: type[BaseModel]
    target_table: str
    operation: Literal["create", "upsert", "repair"]
    run: Callable[[Session, Any], BaseModel]
    summary: Callable[[Any, Any], str]
    audited: bool = True


@dataclass(frozen=True)
class WriteOutcome:
    result: BaseModel
    audit_impulse_id: str | None


def _link_summary(p: LinkData, r: Any) -> str:
    verb = "created" if r.created else "updated"
    return f"Edge {p.from_concept_id} -[{p.edge_type}]-> {p.to_concept_id} {verb}, weight {r.weight:.4f}"


def _sweep_summary(p: DecontaminateRequest, r: Any) -> str:
    verb = "would change" if p.dry_run else "changed"
    run = "dry run" if p.dry_run else "applied"
    return f"Credit sweep ({run}): {r.concepts_changed} of {r.concepts_scanned} concepts {verb}"


WRITE_OPS: dict[str, WriteOp] = {
    op.shape: op
    for op in (
        WriteOp(
            "concept_write",
            None,
            ConceptFromSource,
            "concept",
            "create",
            create_from_source,
            lambda p, r: f"Concept {r.id} created from source type {p.source_type}",
        ),
        WriteOp(
            "concept_create_write",
            "conceptData",
            CreateConceptRequest,
            "concept",
            "create",
            create_concept,
            lambda p, r: f"Concept {r.id} created",
        ),
        WriteOp(
            "conceptLink_write",
            "linkData",
            LinkData,
            "concept_edge",
            "upsert",
            link_concepts,
            _link_summary,
        ),
        WriteOp(
            "conceptSignatureUpsert_write",
            None,
            SignatureUpsertRequest,
            "concept",
            "upsert",
            upsert_by_signature,
            lambda p, r: (
                f"Signature {p.pointer_type}:{p.shape} → {r.id} "
                f"({'created' if r.created else 'existing'})"
            ),
        ),
        WriteOp(
            "conceptUsage_write",
            "usageData",
            UsageData,
            "concept_usage",
            "create",
            record_usage,
            lambda p, r: f"Usage {r.id} recorded for {p.concept_id} ({p.outcome})",
        ),
        WriteOp(
            "conceptSequence_write",
            "sequenceData",
            SequenceData,
            "concept_sequence",
            "create",
            record_sequence,
            lambda p, r: f"Sequence {r.id} of {len(p.concept_ids)} concepts recorded",
        ),
        WriteOp(
            "conceptCreditDecontaminate_write",
            None,
            DecontaminateRequest,
            "concept",
            "repair",
            decontaminate_credits,
            _sweep_summary,
            audited=False,
        ),
    )
}


def _audit(
    s: Session, op: WriteOp, payload: BaseModel, result: BaseModel, caller: Caller
) -> str | None:
    result_id = getattr(result, "id", None)
    events_before = len(s.events)
    s.conn.execute("SAVEPOINT audit")
    try:
        impulse = insert_impulse(
            s,
            shape=AUDIT_SHAPE,
            pointer={
                "operation": op.operation,
                "target_table": op.target_table,
                "target_ids": [result_id] if result_id else [],
                "request_body": payload.model_dump(mode="json", exclude_unset=True),
                "result_id": result_id,
                "performed_by": caller.actor,
                "org_id": s.org,
                "performed_at": s.now,
            },
            summary=f"{op.shape} → {op.target_table} ({result_id})",
            project_id=getattr(payload, "project_id", None),
            created_by_activity_id=caller.activity_id,
            created_by_resolver_id=op.shape,
            expires_at=(
                instant_after(s.now, s.config.audit_ttl_seconds)
                if s.config.audit_ttl_seconds
                else None
            ),
        )
    except Exception:
        s.conn.execute("ROLLBACK TO audit")
        s.conn.execute("RELEASE audit")
        del s.events[events_before:]
        log.exception(
            "[audit-failed] %s for %s in org %s: no audit impulse recorded; the write stands",
            op.shape,
            result_id,
            s.org,
        )
        return None
    s.conn.execute("RELEASE audit")
    return impulse.id


def caller_of(ctx: Context) -> Caller:
    """Who writes: the credential's org (an anonymous read is the anonymous org's), the actor,
    and the activity the transport named."""
    return Caller(
        org=ctx.org or ctx.config.impulses.anonymous_org,
        actor=ctx.actor,
        activity_id=ctx.meta.get("activity_id"),
    )


def perform(ctx: Context, op: WriteOp, payload: BaseModel) -> WriteOutcome:
    """Run one write operation in the caller's org: one instance.db transaction holding the
    write, its audit impulse and the call's log row; the events fire after it commits."""
    caller = caller_of(ctx)
    with ctx.write_instance() as conn:
        s = Session(conn, caller.org, ctx.clock.instant(), ctx.config.impulses)
        result = op.run(s, payload)
        audit_id = _audit(s, op, payload, result, caller) if op.audited else None
    lifecycle(ctx.home).emit(s.events)
    return WriteOutcome(result, audit_id)
