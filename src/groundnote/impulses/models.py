"""The inputs and answers of every impulse operation: the payloads the write shapes and MCP
tools accept, the read shapes' pointers, the rows they answer with, discovery.

Payload models refuse unknown keys, so `org_id` can never arrive in a payload: the org comes
from the credential and nothing else.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from groundnote.domain.guidance import StrictModel
from groundnote.domain.text import OneLine

__all__ = [
    "AUDIT_FIELD",
    "Concept",
    "ConceptCreateInput",
    "ConceptFromSource",
    "ConceptPointer",
    "ConceptSequence",
    "ConceptSequences",
    "ConceptWritten",
    "CooccurrencePointer",
    "CreateConceptRequest",
    "DecontaminateRequest",
    "DecontaminationChange",
    "DecontaminationReport",
    "DiscoveryInput",
    "DiscoveryRecord",
    "Edge",
    "EdgeWritten",
    "ImpulseReadInput",
    "LinkData",
    "Outcome",
    "PruneInput",
    "Pruned",
    "RelatedPointer",
    "SequenceData",
    "SequencePointer",
    "SequenceWritten",
    "ShapeAnswer",
    "SignatureUpsertRequest",
    "SignatureUpsertResult",
    "SignatureUpserted",
    "Usage",
    "UsageData",
    "UsageStats",
    "UsageWritten",
    "payload_pointer",
]

Outcome = Literal["success", "failure", "partial", "unknown"]
Text = Field(min_length=1, max_length=500)


class _ConceptFields(StrictModel):
    summary: str | None = Field(None, max_length=5000)
    priority: float | None = Field(None, ge=0, le=1)
    budget: int | None = Field(None, ge=0, description="Token budget for loading the concept.")
    scope: str = Field("global", min_length=1, max_length=100, description="Visibility label.")
    public: bool = False
    project_id: str | None = Field(None, max_length=200)
    metadata: dict[str, Any] = Field(default_factory=dict)


class CreateConceptRequest(_ConceptFields):
    """`conceptData` of concept_create_write; the input of the MCP tool concept_create."""

    name: OneLine = Text
    shape: str = Field(min_length=1, max_length=200)
    content: str | None = Field(None, max_length=200_000)
    source_type: str | None = Field(None, max_length=100)


class ConceptFromSource(_ConceptFields):
    """The pointer fields of concept_write: shape, budget and priority follow the source type."""

    source_type: str = Field(min_length=1, max_length=100)
    content: str = Field(min_length=1, max_length=200_000)
    name: OneLine | None = Field(None, min_length=1, max_length=500)


class SignatureUpsertRequest(StrictModel):
    pointer_type: str = Field(min_length=1, max_length=200)
    shape: str = Field(min_length=1, max_length=200)
    summary: str | None = Field(None, max_length=5000)
    project_id: str | None = Field(None, max_length=200)
    metadata: dict[str, Any] = Field(default_factory=dict)


class LinkData(StrictModel):
    from_concept_id: str = Field(min_length=1, max_length=200)
    to_concept_id: str = Field(min_length=1, max_length=200)
    edge_type: str = Field(min_length=1, max_length=100)
    weight: float = Field(
        1.0,
        ge=0,
        le=1,
        description="The observed strength; an existing edge moves towards it by the EMA alpha.",
    )
    metadata: dict[str, Any] = Field(default_factory=dict)


class UsageData(StrictModel):
    concept_id: str = Field(min_length=1, max_length=200)
    trace_id: str | None = Field(None, max_length=200)
    activity_execution_id: str | None = Field(None, max_length=200)
    outcome: Outcome = "success"
    metadata: dict[str, Any] = Field(default_factory=dict)


class SequenceData(StrictModel):
    concept_ids: list[str] = Field(min_length=1, max_length=1000)
    name: str | None = Field(None, max_length=500)
    trace_id: str | None = Field(None, max_length=200)
    activity_execution_id: str | None = Field(None, max_length=200)
    outcome: Outcome | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class DecontaminateRequest(StrictModel):
    dry_run: bool = Field(True, description="false: write the rebuilt credits.")
    min_loads: int = Field(1, ge=0, description="Only concepts loaded at least this often.")


class Concept(BaseModel):
    id: str
    org_id: str
    project_id: str | None
    name: str
    shape: str
    summary: str | None
    content: str | None
    priority: float
    budget: int | None
    scope: str
    public: bool
    metadata: dict[str, Any]
    source_type: str | None
    signature_pointer_type: str | None
    signature_shape: str | None
    loads: int
    credits: int
    created_at: str
    updated_at: str


class Edge(BaseModel):
    id: str
    org_id: str
    from_concept_id: str
    to_concept_id: str
    edge_type: str
    weight: float
    count: int
    metadata: dict[str, Any]
    created_at: str
    updated_at: str
    created: bool = Field(description="true: this call created the edge; false: it moved it.")


class SignatureUpsertResult(BaseModel):
    id: str
    created: bool


class Usage(BaseModel):
    id: str
    org_id: str
    concept_id: str
    trace_id: str | None
    activity_execution_id: str | None
    outcome: Outcome
    metadata: dict[str, Any]
    at: str


class ConceptSequence(BaseModel):
    id: str
    org_id: str
    name: str | None
    concept_ids: list[str]
    trace_id: str | None
    activity_execution_id: str | None
    outcome: Outcome | None
    metadata: dict[str, Any]
    created_at: str


class UsageStats(BaseModel):
    concept_id: str
    loads: int
    credits: int
    usage_count: int
    by_outcome: dict[str, int]
    distinct_traces: int
    last_used_at: str | None


class DecontaminationChange(BaseModel):
    concept_id: str
    credits_before: int
    credits_after: int


class DecontaminationReport(BaseModel):
    """The conceptCreditDecontaminationReport body."""

    shape: Literal["conceptCreditDecontaminationReport"] = "conceptCreditDecontaminationReport"
    dry_run: bool
    min_loads: int
    concepts_scanned: int
    concepts_changed: int
    credits_before: int
    credits_after: int
    usage_rows_counted: int
    usage_rows_discarded: dict[str, int] = Field(
        description="Rows that earn no credit, by reason: synthetic, unbound, not_success."
    )
    changes: list[DecontaminationChange]


# -- the MCP tools' inputs and answers ----------------------------------------------------

AUDIT_FIELD = Field(
    description="The conceptUpkeepAuditLog impulse of this write; null if it failed."
)


class ConceptCreateInput(StrictModel):
    concept: CreateConceptRequest = Field(description="The concept, as conceptData of the shape.")


class ConceptWritten(BaseModel):
    concept: Concept
    audit_impulse_id: str | None = AUDIT_FIELD


class EdgeWritten(BaseModel):
    edge: Edge
    audit_impulse_id: str | None = AUDIT_FIELD


class SignatureUpserted(BaseModel):
    id: str
    created: bool = Field(description="true only for the call that created the concept.")
    audit_impulse_id: str | None = AUDIT_FIELD


class UsageWritten(BaseModel):
    usage: Usage
    audit_impulse_id: str | None = AUDIT_FIELD


class SequenceWritten(BaseModel):
    sequence: ConceptSequence
    audit_impulse_id: str | None = AUDIT_FIELD


# -- discovery, reading and pruning impulses -----------------------------------------------


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


class ImpulseReadInput(StrictModel):
    id: str = Field(
        min_length=1, max_length=200, description="An impulse id, e.g. an auditImpulseId."
    )


class PruneInput(StrictModel):
    pass


class Pruned(BaseModel):
    removed: int = Field(description="Impulses of your org whose expires_at had passed.")


# -- the shapes: read pointers, write pointers, the answer of every shape -------------------


class ConceptPointer(StrictModel):
    concept_id: str = Field(min_length=1, max_length=200)


class RelatedPointer(StrictModel):
    concept_id: str = Field(min_length=1, max_length=200)
    edge_type: str | None = Field(None, min_length=1, max_length=100)
    min_weight: float = Field(0.0, ge=0, le=1)
    limit: int = Field(20, ge=1, le=500)


class CooccurrencePointer(StrictModel):
    edge_type: str | None = Field(None, min_length=1, max_length=100)
    pointer_type: str | None = Field(None, min_length=1, max_length=200)
    min_weight: float = Field(0.0, ge=0, le=1)
    min_count: int = Field(1, ge=1)
    limit: int = Field(50, ge=1, le=1000)


class SequencePointer(StrictModel):
    concept_id: str | None = Field(None, min_length=1, max_length=200)
    trace_id: str | None = Field(None, min_length=1, max_length=200)
    limit: int = Field(20, ge=1, le=500)


class ConceptSequences(BaseModel):
    sequences: list[ConceptSequence]


def payload_pointer(payload: type[BaseModel], field: str) -> type[BaseModel]:
    """The pointer of a write shape whose payload sits in one field (`{"linkData": {…}}`): the
    payload is its `data`, so one input model carries the seed's field name."""
    model: type[BaseModel] = create_model(
        f"{payload.__name__}Pointer",
        __base__=StrictModel,
        data=(payload, Field(alias=field, description=f"The {field} object of the shape.")),
    )
    return model


class ShapeAnswer(BaseModel):
    """What a shape resolves to; the endpoint wraps it in seed 003's envelope."""

    content: Any = Field(description="The resolved content; the envelope carries it as JSON text.")
    summary: str
    audit_impulse_id: str | None = None
    audited: bool = Field(False, description="The shape records an audit impulse.")
