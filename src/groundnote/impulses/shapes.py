"""Every shape of the resolve endpoint, declared once: discovery and dispatch both read it.

Each dispatched shape is a capability (`capabilities.py` builds one per entry of `DISPATCH`,
with this table's input model and the handler of its name), so a shape passes the registry's
pipeline like every other call: credentials, channel, validation, the right in the caller's
organisation, one operation log, one backstop mapping. The endpoint itself only translates
seed 003's envelope (`surfaces/http/impulses.py`).

A shape is advertised unless its declaration says `private`; `check_shape_dispatch` holds the
advertised list and the dispatch table together both ways (the seed's shape-dispatch agreement
check). `conceptUpkeepAuditLog` is private and not dispatched: it is emitted as a side effect
and never resolved by pointer.

The anonymous read allowlist is derived as well: read shapes that change nothing. `concept`
counts a load, so it needs credentials like every write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from groundnote.impulses.models import (
    ConceptPointer,
    CooccurrencePointer,
    RelatedPointer,
    SequencePointer,
    payload_pointer,
)
from groundnote.impulses.writes import AUDIT_SHAPE, WRITE_OPS

__all__ = [
    "ADVERTISED_SHAPES",
    "ANONYMOUS_READ_SHAPES",
    "DISPATCH",
    "PRIVATE_SHAPES",
    "RESOLVE_ENDPOINT",
    "SHAPES",
    "Shape",
    "check_shape_dispatch",
]

RESOLVE_ENDPOINT = "/v2/impulses/resolve"


@dataclass(frozen=True)
class Shape:
    name: str
    kind: Literal["read", "write", "emitted"]
    mutates: bool
    description: str
    input: type[BaseModel] | None  # the pointer (without `type`) the shape takes
    payload_field: str | None = None  # a write's pointer field holding its payload
    private: bool = False  # the seed's @shape-dispatch:private marker: never advertised


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
    Shape("concept", "read", True, "one concept by concept_id; counts a load", ConceptPointer),
    Shape(
        "relatedConcepts",
        "read",
        False,
        "concepts linked to concept_id, strongest first",
        RelatedPointer,
    ),
    Shape(
        "impulseCooccurrenceEdges",
        "read",
        False,
        "edges between impulse-signature concepts",
        CooccurrencePointer,
    ),
    Shape(
        "conceptUsageStats",
        "read",
        False,
        "usage and credit figures of concept_id",
        ConceptPointer,
    ),
    Shape(
        "conceptSequence",
        "read",
        False,
        "recorded sequences by concept_id and/or trace_id",
        SequencePointer,
    ),
    *(
        Shape(
            op.shape,
            "write",
            True,
            f"writes {_WRITE_DESCRIPTIONS[op.shape]}",
            payload_pointer(op.model, op.payload_field) if op.payload_field else op.model,
            payload_field=op.payload_field,
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

DISPATCH: dict[str, Shape] = {s.name: s for s in SHAPES if s.input is not None}
ADVERTISED_SHAPES: list[str] = [s.name for s in SHAPES if not s.private]
PRIVATE_SHAPES: list[str] = [s.name for s in SHAPES if s.private]
ANONYMOUS_READ_SHAPES: list[str] = [
    s.name for s in DISPATCH.values() if s.kind == "read" and not s.mutates
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
