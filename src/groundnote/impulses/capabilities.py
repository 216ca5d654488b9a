"""The impulse capabilities: concept-db's MCP tools, one capability per shape of the resolve
endpoint (seed 003), discovery, reading and pruning impulses. All act in the caller's
organisation (`Tenancy.org()`); the models are in models.py, the handlers in handlers.py.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    HttpExposure,
    McpExposure,
    ShapeExposure,
    Tenancy,
)
from groundnote.config import Config
from groundnote.impulses import handlers
from groundnote.impulses.models import (
    ConceptCreateInput,
    ConceptWritten,
    DiscoveryInput,
    DiscoveryRecord,
    EdgeWritten,
    ImpulseReadInput,
    LinkData,
    Pruned,
    PruneInput,
    SequenceData,
    SequenceWritten,
    ShapeAnswer,
    SignatureUpserted,
    SignatureUpsertRequest,
    UsageData,
    UsageWritten,
)
from groundnote.impulses.shapes import ANONYMOUS_READ_SHAPES, DISPATCH, RESOLVE_ENDPOINT, Shape
from groundnote.impulses.table import Impulse
from groundnote.impulses.writes import WRITE_OPS

__all__ = ["CAPABILITIES", "SHAPE_CAPABILITIES"]


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
        tenancy=Tenancy.org(),
        input=input,
        output=output,
        description=description,
        handler=handler,
        mcp=McpExposure(name),
        annotations=Annotations(read_only=False, idempotent=idempotent),
    )


TOOLS: list[Capability[Any, Any]] = [
    _tool(
        "concept_create",
        handlers.concept_create,
        ConceptCreateInput,
        ConceptWritten,
        "Create a learned concept in your org from explicit fields (name, shape, optional "
        "summary, content, priority, budget, metadata). Same operation as the "
        "concept_create_write shape; the write is audited.",
    ),
    _tool(
        "concept_link",
        handlers.concept_link,
        LinkData,
        EdgeWritten,
        "Link two concepts of your org with a typed edge. Linking the same pair and type again "
        "moves its weight towards the observed weight by an exponential moving average "
        "(alpha from impulses.ema_alpha) and counts the observation.",
    ),
    _tool(
        "concept_upsert_by_signature",
        handlers.concept_upsert_by_signature,
        SignatureUpsertRequest,
        SignatureUpserted,
        "Get or create the concept for an impulse signature (pointer_type, shape) in your org. "
        "Idempotent: the first call answers created true, every later call the same id with "
        "created false.",
        idempotent=True,
    ),
    _tool(
        "concept_record_usage",
        handlers.concept_record_usage,
        UsageData,
        UsageWritten,
        "Record that a concept was used by an activity: trace id, activity execution id and "
        "outcome. A success credits the concept.",
    ),
    _tool(
        "concept_sequence_record",
        handlers.concept_sequence_record,
        SequenceData,
        SequenceWritten,
        "Record an ordered sequence of concepts of your org (e.g. the order an activity used "
        "them in), with its trace and outcome.",
    ),
]

# Each read shape's handler; the write shapes share `handlers.write_shape`.
_READ_HANDLERS: dict[str, Any] = {
    "concept": handlers.concept,
    "relatedConcepts": handlers.related_concepts,
    "impulseCooccurrenceEdges": handlers.impulse_cooccurrence_edges,
    "conceptUsageStats": handlers.concept_usage_stats,
    "conceptSequence": handlers.concept_sequence,
}


def _open_without_credentials(config: Config) -> bool:
    return not config.impulses.require_auth


def _shape(shape: Shape) -> Capability[Any, Any]:
    assert shape.input is not None
    writes = shape.kind == "write"
    return Capability(
        name=f"impulses.{shape.name}",
        kind="command" if writes else "query",
        right=Right.PROPOSE if writes else Right.READ,
        tenancy=Tenancy.org(),
        input=shape.input,
        output=ShapeAnswer,
        description=f"The {shape.name} shape of {RESOLVE_ENDPOINT}: {shape.description}.",
        handler=handlers.write_shape(WRITE_OPS[shape.name])
        if writes
        else _READ_HANDLERS[shape.name],
        shape=ShapeExposure(shape.name, payload_field=shape.payload_field),
        annotations=Annotations(read_only=not shape.mutates, idempotent=not shape.mutates),
        anonymous=_open_without_credentials if shape.name in ANONYMOUS_READ_SHAPES else False,
    )


SHAPE_CAPABILITIES: list[Capability[Any, Any]] = [_shape(s) for s in DISPATCH.values()]

CAPABILITIES: list[Capability[Any, Any]] = [
    *TOOLS,
    *SHAPE_CAPABILITIES,
    Capability(
        name="impulses.discovery",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.instance(),
        input=DiscoveryInput,
        output=DiscoveryRecord,
        description=(
            "Describe this vessel for discovery: its id, every shape its resolve endpoint "
            "dispatches, the endpoint, the request format (pointer) and the auth scheme."
        ),
        handler=handlers.discovery,
        http=HttpExposure("GET", "/v2/discovery"),
        cli=CliExposure(("impulses", "discovery")),
        annotations=Annotations(read_only=True, idempotent=True),
        anonymous=True,
    ),
    Capability(
        name="impulses.impulse_read",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.org(),
        input=ImpulseReadInput,
        output=Impulse,
        description=(
            "Read one impulse of your org by id, e.g. the audit record a write answered with "
            "as auditImpulseId."
        ),
        handler=handlers.impulse_read,
        http=HttpExposure("GET", "/v2/impulses/{id}"),
        cli=CliExposure(("impulses", "show")),
        annotations=Annotations(read_only=True, idempotent=True),
    ),
    Capability(
        name="impulses.prune",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.org(),
        input=PruneInput,
        output=Pruned,
        description=(
            "Delete the impulses of your org whose expires_at has passed; impulses without "
            "expiry stay. `serve` runs this sweep on its own every impulses.prune_interval_seconds."
        ),
        handler=handlers.prune,
        cli=CliExposure(("impulses", "prune")),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    ),
]
