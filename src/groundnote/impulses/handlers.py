"""One handler per impulse operation: the MCP tools of concept-db, the shapes of the resolve
endpoint, discovery, reading and pruning impulses. Each acts in the caller's organisation
(`ctx.org`; the registry checked the right there), opens its one transaction, and answers.

The write tools and the write shapes run the same operation (`writes.perform` with
`WRITE_OPS[...]`), audit impulse included; the seven write shapes differ only in that table
entry, so they share one handler factory, `write_shape`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from groundnote.capabilities import Context
from groundnote.impulses import edges
from groundnote.impulses.concepts import resolve_concept
from groundnote.impulses.events import lifecycle
from groundnote.impulses.models import (
    ConceptCreateInput,
    ConceptPointer,
    ConceptSequences,
    ConceptWritten,
    CooccurrencePointer,
    DiscoveryInput,
    DiscoveryRecord,
    EdgeWritten,
    ImpulseReadInput,
    LinkData,
    Pruned,
    PruneInput,
    RelatedPointer,
    SequenceData,
    SequencePointer,
    SequenceWritten,
    ShapeAnswer,
    SignatureUpserted,
    SignatureUpsertRequest,
    UsageData,
    UsageWritten,
)
from groundnote.impulses.session import Session
from groundnote.impulses.shapes import ADVERTISED_SHAPES, ANONYMOUS_READ_SHAPES, RESOLVE_ENDPOINT
from groundnote.impulses.table import Impulse, get_impulse, prune_expired_impulses
from groundnote.impulses.usage import sequences, usage_stats
from groundnote.impulses.writes import WRITE_OPS, WriteOp, caller_of, perform

__all__ = [
    "concept",
    "concept_create",
    "concept_link",
    "concept_record_usage",
    "concept_sequence",
    "concept_sequence_record",
    "concept_upsert_by_signature",
    "concept_usage_stats",
    "discovery",
    "impulse_cooccurrence_edges",
    "impulse_read",
    "prune",
    "related_concepts",
    "write_shape",
]


def _run(ctx: Context, shape: str, payload: BaseModel) -> tuple[Any, str | None]:
    outcome = perform(ctx, WRITE_OPS[shape], payload)
    return outcome.result, outcome.audit_impulse_id


# -- the MCP tools ---------------------------------------------------------------------------


def concept_create(ctx: Context, value: ConceptCreateInput) -> ConceptWritten:
    concept_row, audit = _run(ctx, "concept_create_write", value.concept)
    return ConceptWritten(concept=concept_row, audit_impulse_id=audit)


def concept_link(ctx: Context, value: LinkData) -> EdgeWritten:
    edge, audit = _run(ctx, "conceptLink_write", value)
    return EdgeWritten(edge=edge, audit_impulse_id=audit)


def concept_upsert_by_signature(ctx: Context, value: SignatureUpsertRequest) -> SignatureUpserted:
    result, audit = _run(ctx, "conceptSignatureUpsert_write", value)
    return SignatureUpserted(id=result.id, created=result.created, audit_impulse_id=audit)


def concept_record_usage(ctx: Context, value: UsageData) -> UsageWritten:
    usage, audit = _run(ctx, "conceptUsage_write", value)
    return UsageWritten(usage=usage, audit_impulse_id=audit)


def concept_sequence_record(ctx: Context, value: SequenceData) -> SequenceWritten:
    sequence, audit = _run(ctx, "conceptSequence_write", value)
    return SequenceWritten(sequence=sequence, audit_impulse_id=audit)


# -- discovery, impulses ---------------------------------------------------------------------


def discovery(ctx: Context, _: DiscoveryInput) -> DiscoveryRecord:
    settings = ctx.config.impulses
    return DiscoveryRecord(
        vessel_id=settings.vessel_id,
        base_url=ctx.public_url(),
        shapes=list(ADVERTISED_SHAPES),
        anonymous_shapes=[] if settings.require_auth else list(ANONYMOUS_READ_SHAPES),
        resolve_endpoint=RESOLVE_ENDPOINT,
    )


def impulse_read(ctx: Context, value: ImpulseReadInput) -> Impulse:
    with ctx.home.instance.read() as conn:
        s = Session(conn, caller_of(ctx).org, ctx.clock.instant(), ctx.config.impulses)
        found = get_impulse(s, value.id)
    lifecycle(ctx.home).emit(s.events)
    return found


def prune(ctx: Context, _: PruneInput) -> Pruned:
    return Pruned(removed=prune_expired_impulses(ctx.home, org=caller_of(ctx).org))


# -- the read shapes -------------------------------------------------------------------------


def _reading(ctx: Context, body: Callable[[Session], ShapeAnswer]) -> ShapeAnswer:
    with ctx.home.instance.read() as conn:
        return body(Session(conn, caller_of(ctx).org, ctx.clock.instant(), ctx.config.impulses))


def concept(ctx: Context, value: ConceptPointer) -> ShapeAnswer:
    """The one read shape that writes: it counts a load, in the call's own transaction."""
    with ctx.write_instance() as conn:
        s = Session(conn, caller_of(ctx).org, ctx.clock.instant(), ctx.config.impulses)
        found = resolve_concept(s, value.concept_id)
    lifecycle(ctx.home).emit(s.events)
    return ShapeAnswer(
        content=found.model_dump(mode="json"), summary=f"Concept {found.id}: {found.name}"
    )


def related_concepts(ctx: Context, p: RelatedPointer) -> ShapeAnswer:
    def body(s: Session) -> ShapeAnswer:
        out = edges.related_concepts(
            s, p.concept_id, edge_type=p.edge_type, min_weight=p.min_weight, limit=p.limit
        )
        return ShapeAnswer(
            content=out.model_dump(mode="json"),
            summary=f"{len(out.related)} concepts related to {p.concept_id}",
        )

    return _reading(ctx, body)


def impulse_cooccurrence_edges(ctx: Context, p: CooccurrencePointer) -> ShapeAnswer:
    def body(s: Session) -> ShapeAnswer:
        out = edges.cooccurrence_edges(
            s,
            edge_type=p.edge_type,
            pointer_type=p.pointer_type,
            min_weight=p.min_weight,
            min_count=p.min_count,
            limit=p.limit,
        )
        return ShapeAnswer(
            content=out.model_dump(mode="json"), summary=f"{len(out.edges)} co-occurrence edges"
        )

    return _reading(ctx, body)


def concept_usage_stats(ctx: Context, p: ConceptPointer) -> ShapeAnswer:
    def body(s: Session) -> ShapeAnswer:
        out = usage_stats(s, p.concept_id)
        return ShapeAnswer(
            content=out.model_dump(mode="json"),
            summary=f"{out.usage_count} usage records, {out.credits} credits for {p.concept_id}",
        )

    return _reading(ctx, body)


def concept_sequence(ctx: Context, p: SequencePointer) -> ShapeAnswer:
    def body(s: Session) -> ShapeAnswer:
        found = sequences(s, concept_id=p.concept_id, trace_id=p.trace_id, limit=p.limit)
        return ShapeAnswer(
            content=ConceptSequences(sequences=found).model_dump(mode="json"),
            summary=f"{len(found)} sequences",
        )

    return _reading(ctx, body)


# -- the write shapes ------------------------------------------------------------------------


def write_shape(op: WriteOp) -> Callable[[Context, Any], ShapeAnswer]:
    """The handler of one write shape: its payload (the pointer, or the pointer's payload
    field) through `perform`, answered with the summary and the audit impulse."""

    def handler(ctx: Context, value: Any) -> ShapeAnswer:
        payload = value.data if op.payload_field else value
        outcome = perform(ctx, op, payload)
        return ShapeAnswer(
            content=outcome.result.model_dump(mode="json"),
            summary=op.summary(payload, outcome.result),
            audit_impulse_id=outcome.audit_impulse_id,
            audited=op.audited,
        )

    handler.__name__ = handler.__qualname__ = op.shape
    return handler
