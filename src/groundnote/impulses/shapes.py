"""Every shape of the resolve endpoint, declared once: discovery and dispatch both read it.

A shape is advertised unless its declaration says `private`; it is dispatched when it has a
resolver. `check_shape_dispatch` holds the two together both ways (the seed's shape-dispatch
agreement check): an advertised shape without a resolver, or a resolver for a shape that is
neither advertised nor marked private, is a defect. `conceptUpkeepAuditLog` is declared private
and has no resolver: it is emitted as a side effect and never resolved by pointer.

The anonymous read allowlist is derived as well: read shapes that change nothing. `concept`
counts a load, so it needs credentials like every write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from groundnote.config import Config
from groundnote.domain.guidance import StrictModel
from groundnote.impulses.concepts import resolve_concept
from groundnote.impulses.edges import cooccurrence_edges, related_concepts
from groundnote.impulses.events import lifecycle
from groundnote.impulses.models import ConceptSequence
from groundnote.impulses.session import Session
from groundnote.impulses.usage import sequences, usage_stats
from groundnote.impulses.writes import AUDIT_SHAPE, WRITE_OPS, Caller, WriteOp, perform
from groundnote.store.home import Home

__all__ = [
    "ADVERTISED_SHAPES",
    "ANONYMOUS_READ_SHAPES",
    "DISPATCH",
    "PRIVATE_SHAPES",
    "SHAPES",
    "Resolved",
    "Shape",
    "ShapeCall",
    "check_shape_dispatch",
]


@dataclass(frozen=True)
class ShapeCall:
    home: Home
    config: Config
    caller: Caller
    within: Callable[[Any], None] | None = None  # extra rows for a write's transaction


@dataclass(frozen=True)
class Resolved:
    content: Any  # JSON-ready
    summary: str
    audit_impulse_id: str | None = None
    audited: bool = False


Resolver = Callable[[ShapeCall, dict[str, Any]], Resolved]


@dataclass(frozen=True)
class Shape:
    name: str
    kind: Literal["read", "write", "emitted"]
    mutates: bool
    description: str
    payload_model: type[BaseModel] | None
    payload_field: str | None = None
    resolver: Resolver | None = None
    private: bool = False  # the seed's @shape-dispatch:private marker: never advertised


# -- read shapes ----------------------------------------------------------------------------


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


def _reading(call: ShapeCall, body: Callable[[Session], Resolved]) -> Resolved:
    with call.home.instance.read() as conn:
        return body(Session(conn, call.caller.org, call.home.clock.instant(), call.config.impulses))


def _concept(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
    pointer = ConceptPointer.model_validate(raw)
    with call.home.instance.write() as conn:
        s = Session(conn, call.caller.org, call.home.clock.instant(), call.config.impulses)
        concept = resolve_concept(s, pointer.concept_id)
        if call.within is not None:
            call.within(conn)
    lifecycle(call.home).emit(s.events)
    return Resolved(concept.model_dump(mode="json"), f"Concept {concept.id}: {concept.name}")


def _related(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
    p = RelatedPointer.model_validate(raw)

    def body(s: Session) -> Resolved:
        out = related_concepts(
            s, p.concept_id, edge_type=p.edge_type, min_weight=p.min_weight, limit=p.limit
        )
        return Resolved(
            out.model_dump(mode="json"), f"{len(out.related)} concepts related to {p.concept_id}"
        )

    return _reading(call, body)


def _cooccurrence(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
    p = CooccurrencePointer.model_validate(raw)

    def body(s: Session) -> Resolved:
        out = cooccurrence_edges(
            s,
            edge_type=p.edge_type,
            pointer_type=p.pointer_type,
            min_weight=p.min_weight,
            min_count=p.min_count,
            limit=p.limit,
        )
        return Resolved(out.model_dump(mode="json"), f"{len(out.edges)} co-occurrence edges")

    return _reading(call, body)


def _usage_stats(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
    p = ConceptPointer.model_validate(raw)

    def body(s: Session) -> Resolved:
        out = usage_stats(s, p.concept_id)
        return Resolved(
            out.model_dump(mode="json"),
            f"{out.usage_count} usage records, {out.credits} credits for {p.concept_id}",
        )

    return _reading(call, body)


def _sequences(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
    p = SequencePointer.model_validate(raw)

    def body(s: Session) -> Resolved:
        found = sequences(s, concept_id=p.concept_id, trace_id=p.trace_id, limit=p.limit)
        return Resolved(
            ConceptSequences(sequences=found).model_dump(mode="json"), f"{len(found)} sequences"
        )

    return _reading(call, body)


# -- write shapes ---------------------------------------------------------------------------


def _writer(op: WriteOp) -> Resolver:
    def resolve(call: ShapeCall, raw: dict[str, Any]) -> Resolved:
        payload = op.model.model_validate(raw)
        outcome = perform(call.home, call.config, call.caller, op, payload, within=call.within)
        return Resolved(
            outcome.result.model_dump(mode="json"),
            op.summary(payload, outcome.result),
            outcome.audit_impulse_id,
            audited=op.audited,
        )

    return resolve


_WRITE_DESCRIPTIONS = {
    "concept_write": "a concept via the from-source path",
    "concept_create_write": "a concept from an explicit request body",
    "conceptLink_write": "an edge, EMA-upserting its weight",
    "conceptSignatureUpsert_write": "a concept keyed on an impulse signature, idempotently",
    "conceptUsage_write": "a usage record against a concept",
    "conceptSequence_write": "a concept sequence",
    "conceptCreditDecontaminate_write": (
        "a credit-repair sweep over concepts whose usage rows carry synthetic or unbound trace "
        "ids; a dry run unless dry_run is false"
    ),
}

SHAPES: tuple[Shape, ...] = (
    Shape(
        "concept",
        "read",
        True,
        "one concept by concept_id; counts a load",
        ConceptPointer,
        resolver=_concept,
    ),
    Shape(
        "relatedConcepts",
        "read",
        False,
        "concepts linked to concept_id, strongest first",
        RelatedPointer,
        resolver=_related,
    ),
    Shape(
        "impulseCooccurrenceEdges",
        "read",
        False,
        "edges between impulse-signature concepts",
        CooccurrencePointer,
        resolver=_cooccurrence,
    ),
    Shape(
        "conceptUsageStats",
        "read",
        False,
        "usage and credit figures of concept_id",
        ConceptPointer,
        resolver=_usage_stats,
    ),
    Shape(
        "conceptSequence",
        "read",
        False,
        "recorded sequences by concept_id and/or trace_id",
        SequencePointer,
        resolver=_sequences,
    ),
    *(
        Shape(
            op.shape,
            "write",
            True,
            f"writes {_WRITE_DESCRIPTIONS[op.shape]}",
            op.model,
            payload_field=op.payload_field,
            resolver=_writer(op),
        )
        for op in WRITE_OPS.values()
    ),
    Shape(
        AUDIT_SHAPE,
        "emitted",
        False,
        "the audit record every mutating write emits; not resolvable",
        None,
        private=True,
    ),
)

DISPATCH: dict[str, Shape] = {s.name: s for s in SHAPES if s.resolver is not None}
ADVERTISED_SHAPES: list[str] = [s.name for s in SHAPES if not s.private]
PRIVATE_SHAPES: list[str] = [s.name for s in SHAPES if s.private]
ANONYMOUS_READ_SHAPES: list[str] = [
    s.name for s in SHAPES if s.kind == "read" and not s.mutates and s.resolver is not None
]


def check_shape_dispatch(
    advertised: Iterable[str], dispatched: Iterable[str], private: Iterable[str]
) -> list[str]:
    """Disagreements between the advertised shapes and the dispatch table, both ways."""
    shown, served, hidden = set(advertised), set(dispatched), set(private)
    problems = [f"{n} is advertised but has no dispatch entry" for n in sorted(shown - served)]
    problems += [
        f"{n} is dispatched but neither advertised nor marked private"
        for n in sorted(served - shown - hidden)
    ]
    problems += [f"{n} is marked private but advertised" for n in sorted(shown & hidden)]
    return problems
