"""Registry capabilities: the MCP tools of concept-db, discovery, reading and pruning impulses.

The MCP tools act in the caller's org (no scope field) and run the very operations the write
shapes run (`writes.perform` with `WRITE_OPS[...]`), audit impulse included.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
)
from groundnote.domain.guidance import StrictModel
from groundnote.impulses.events import lifecycle
from groundnote.impulses.models import (
    Concept,
    ConceptSequence,
    CreateConceptRequest,
    Edge,
    LinkData,
    SequenceData,
    SignatureUpsertRequest,
    Usage,
    UsageData,
)
from groundnote.impulses.resolve import RESOLVE_ENDPOINT
from groundnote.impulses.session import Session
from groundnote.impulses.shapes import ADVERTISED_SHAPES, ANONYMOUS_READ_SHAPES
from groundnote.impulses.table import Impulse, get_impulse, prune_expired_impulses
from groundnote.impulses.writes import WRITE_OPS, Caller, perform

__all__ = ["CAPABILITIES"]

_AUDIT = Field(description="The conceptUpkeepAuditLog impulse of this write; null if it failed.")


def _caller(ctx: Context) -> Caller:
    assert ctx.principal is not None
    return Caller(org=ctx.principal.org, actor=ctx.actor)


def _run(ctx: Context, shape: str, payload: BaseModel) -> tuple[Any, str | None]:
    outcome = perform(ctx.home, ctx.config, _caller(ctx), WRITE_OPS[shape], payload)
    return outcome.result, outcome.audit_impulse_id


class ConceptCreateInput(StrictModel):
    concept: CreateConceptRequest = Field(description="The concept, as conceptData of the shape.")


class ConceptWritten(BaseModel):
    concept: Concept
    audit_impulse_id: str | None = _AUDIT


def concept_create(ctx: Context, value: ConceptCreateInput) -> ConceptWritten:
    concept, audit = _run(ctx, "concept_create_write", value.concept)
    return ConceptWritten(concept=concept, audit_impulse_id=audit)


class EdgeWritten(BaseModel):
    edge: Edge
    audit_impulse_id: str | None = _AUDIT


def concept_link(ctx: Context, value: LinkData) -> EdgeWritten:
    edge, audit = _run(ctx, "conceptLink_write", value)
    return EdgeWritten(edge=edge, audit_impulse_id=audit)


class SignatureUpserted(BaseModel):
    id: str
    created: bool = Field(description="true only for the call that created the concept.")
    audit_impulse_id: str | None = _AUDIT


def concept_upsert_by_signature(ctx: Context, value: SignatureUpsertRequest) -> SignatureUpserted:
    result, audit = _run(ctx, "conceptSignatureUpsert_write", value)
    return SignatureUpserted(id=result.id, created=result.created, audit_impulse_id=audit)


class UsageWritten(BaseModel):
    usage: Usage
    audit_impulse_id: str | None = _AUDIT


def concept_record_usage(ctx: Context, value: UsageData) -> UsageWritten:
    usage, audit = _run(ctx, "conceptUsage_write", value)
    return UsageWritten(usage=usage, audit_impulse_id=audit)


class SequenceWritten(BaseModel):
    sequence: ConceptSequence
    audit_impulse_id: str | None = _AUDIT


def concept_sequence_record(ctx: Context, value: SequenceData) -> SequenceWritten:
    sequence, audit = _run(ctx, "conceptSequence_write", value)
    return SequenceWritten(sequence=sequence, audit_impulse_id=audit)


class DiscoveryInput(StrictModel):
    pass


class DiscoveryRecord(BaseModel):
    vessel_id: str
    base_url: str
    shapes: list[str] = Field(description="Every shape the resolve endpoint dispatches.")
    anonymous_shapes: list[str] = Field(
        description="Shapes callers without credentials may resolve."
    )
    resolve_endpoint: str
    resolve_request_format: Literal["pointer"] = "pointer"
    auth_scheme: Literal["bearer"] = "bearer"


def discovery(ctx: Context, _: DiscoveryInput) -> DiscoveryRecord:
    settings = ctx.config.impulses
    return DiscoveryRecord(
        vessel_id=settings.vessel_id,
        base_url=ctx.public_url(),
        shapes=list(ADVERTISED_SHAPES),
        anonymous_shapes=[] if settings.require_auth else list(ANONYMOUS_READ_SHAPES),
        resolve_endpoint=RESOLVE_ENDPOINT,
    )


class ImpulseReadInput(StrictModel):
    id: str = Field(
        min_length=1, max_length=200, description="An impulse id, e.g. an auditImpulseId."
    )


def impulse_read(ctx: Context, value: ImpulseReadInput) -> Impulse:
    assert ctx.principal is not None
    with ctx.home.instance.read() as conn:
        s = Session(conn, ctx.principal.org, ctx.clock.instant(), ctx.config.impulses)
        impulse = get_impulse(s, value.id)
    lifecycle(ctx.home).emit(s.events)
    return impulse


class PruneInput(StrictModel):
    pass


class Pruned(BaseModel):
    removed: int = Field(description="Impulses of your org whose expires_at had passed.")


def prune(ctx: Context, _: PruneInput) -> Pruned:
    assert ctx.principal is not None
    return Pruned(removed=prune_expired_impulses(ctx.home, org=ctx.principal.org))


def _tool(
    name: str,
    handler: Any,
    input: type[BaseModel],
    output: type[BaseModel],
    description: str,
    *,
    idempotent: bool = False,
) -> Capability[Any, Any]:
    return Capability(
        name=f"impulses.{name}",
        kind="command",
        right=Right.PROPOSE,
        input=input,
        output=output,
        description=description,
        handler=handler,
        mcp=McpExposure(name),
        annotations=Annotations(read_only=False, idempotent=idempotent),
        log_operation=None,
    )


CAPABILITIES: list[Capability[Any, Any]] = [
    _tool(
        "concept_create",
        concept_create,
        ConceptCreateInput,
        ConceptWritten,
        "Create a learned concept in your org from explicit fields (name, shape, optional "
        "summary, content, priority, budget, metadata). Same operation as the "
        "concept_create_write shape; the write is audited.",
    ),
    _tool(
        "concept_link",
        concept_link,
        LinkData,
        EdgeWritten,
        "Link two concepts of your org with a typed edge. Linking the same pair and type again "
        "moves its weight towards the observed weight by an exponential moving average "
        "(alpha from impulses.ema_alpha) and counts the observation.",
    ),
    _tool(
        "concept_upsert_by_signature",
        concept_upsert_by_signature,
        SignatureUpsertRequest,
        SignatureUpserted,
        "Get or create the concept for an impulse signature (pointer_type, shape) in your org. "
        "Idempotent: the first call answers created true, every later call the same id with "
        "created false.",
        idempotent=True,
    ),
    _tool(
        "concept_record_usage",
        concept_record_usage,
        UsageData,
        UsageWritten,
        "Record that a concept was used by an activity: trace id, activity execution id and "
        "outcome. A success credits the concept.",
    ),
    _tool(
        "concept_sequence_record",
        concept_sequence_record,
        SequenceData,
        SequenceWritten,
        "Record an ordered sequence of concepts of your org (e.g. the order an activity used "
        "them in), with its trace and outcome.",
    ),
    Capability(
        name="impulses.discovery",
        kind="query",
        right=Right.READ,
        input=DiscoveryInput,
        output=DiscoveryRecord,
        description=(
            "Describe this vessel for discovery: its id, every shape its resolve endpoint "
            "dispatches, the endpoint, the request format (pointer) and the auth scheme."
        ),
        handler=discovery,
        http=HttpExposure("GET", "/v2/discovery"),
        cli=CliExposure(("impulses", "discovery")),
        annotations=Annotations(read_only=True, idempotent=True),
        anonymous=True,
    ),
    Capability(
        name="impulses.impulse_read",
        kind="query",
        right=Right.READ,
        input=ImpulseReadInput,
        output=Impulse,
        description=(
            "Read one impulse of your org by id, e.g. the audit record a write answered with "
            "as auditImpulseId."
        ),
        handler=impulse_read,
        http=HttpExposure("GET", "/v2/impulses/{id}"),
        cli=CliExposure(("impulses", "show")),
        annotations=Annotations(read_only=True, idempotent=True),
    ),
    Capability(
        name="impulses.prune",
        kind="command",
        right=Right.PROPOSE,
        input=PruneInput,
        output=Pruned,
        description=(
            "Delete the impulses of your org whose expires_at has passed; impulses without "
            "expiry stay. `serve` runs this sweep on its own every impulses.prune_interval_seconds."
        ),
        handler=prune,
        cli=CliExposure(("impulses", "prune")),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    ),
]
