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
    title: str,
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
        mcp=McpExposure(name, title),
        annotations=Annotations(read_only=False, idempotent=idempotent),
    )


TOOLS: list[Capability[Any, Any]] = [
    _tool(
        "concept_create",
        "Create a learned concept",
        handlers.concept_create,
        ConceptCreateInput,
        ConceptWritten,
        "Create a learned concept for your organisation: a named piece of know-how (name, "
        "shape, and optionally summary, content, priority, budget, metadata) that automations "
        "reuse. Use it when you learned something worth reusing that no concept holds yet; "
        "for a signature you meet repeatedly use concept_upsert_by_signature instead. Returns "
        "the concept's id; the write is audited, and nothing needs a person's approval.",
    ),
    _tool(
        "concept_link",
        "Relate two concepts",
        handlers.concept_link,
        LinkData,
        EdgeWritten,
        "Relate two concepts of your organisation with a typed, weighted edge, for example "
        "that one usually follows the other. Use it each time you observe the relation: "
        "linking the same pair and type again moves the weight a step towards the weight you "
        "observed (a moving average) and counts the observation. Returns the edge with its "
        "weight and count.",
    ),
    _tool(
        "concept_upsert_by_signature",
        "Get or create a concept by signature",
        handlers.concept_upsert_by_signature,
        SignatureUpsertRequest,
        SignatureUpserted,
        "Get the concept for a kind of input you handle (its pointer_type and shape), creating "
        "it the first time. Safe to repeat: the first call answers created true, every later "
        "call the same id with created false. Use its id with concept_record_usage and "
        "concept_link.",
        idempotent=True,
    ),
    _tool(
        "concept_record_usage",
        "Record that a concept was used",
        handlers.concept_record_usage,
        UsageData,
        UsageWritten,
        "Record that you (or an automation) used a concept, with the trace id, the activity's "
        "execution id and the outcome. A success credits the concept, so good concepts rank "
        "higher next time. Call it once per use, after you know the outcome.",
    ),
    _tool(
        "concept_sequence_record",
        "Record a sequence of concepts",
        handlers.concept_sequence_record,
        SequenceData,
        SequenceWritten,
        "Record the order in which concepts of your organisation were used in one activity, "
        "with its trace id and outcome, so that a sequence that worked can be suggested "
        "again. Call it once, at the end of the activity.",
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
