"""Concepts: create from an explicit request, from a source, or by impulse signature; resolve.

Source-type defaults (concept_write derives shape, budget and priority from `source_type`;
explicit `priority` / `budget` in the pointer win). This table is the one place they are kept:

    source_type        shape                 budget  priority
    document           documentConcept        2000    0.5
    conversation       conversationConcept    1000    0.4
    code               codeConcept            1500    0.6
    observation        observationConcept      500    0.5
    impulse_signature  impulseSignature        200    0.3
    manual             concept                1000    0.5

Callers that know what they want should prefer concept_create_write with explicit fields.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.impulses.models import (
    Concept,
    ConceptFromSource,
    CreateConceptRequest,
    SignatureUpsertRequest,
    SignatureUpsertResult,
)
from groundnote.impulses.session import Session, new_id, row_dict
from groundnote.store.sql import Row

__all__ = [
    "SIGNATURE_SHAPE",
    "SOURCE_TYPE_DEFAULTS",
    "SourceDefaults",
    "concept_by_id",
    "create_concept",
    "create_from_source",
    "missing_concepts",
    "resolve_concept",
    "upsert_by_signature",
]


class SourceDefaults(NamedTuple):
    shape: str
    budget: int
    priority: float


SOURCE_TYPE_DEFAULTS: dict[str, SourceDefaults] = {
    "document": SourceDefaults("documentConcept", 2000, 0.5),
    "conversation": SourceDefaults("conversationConcept", 1000, 0.4),
    "code": SourceDefaults("codeConcept", 1500, 0.6),
    "observation": SourceDefaults("observationConcept", 500, 0.5),
    "impulse_signature": SourceDefaults("impulseSignature", 200, 0.3),
    "manual": SourceDefaults("concept", 1000, 0.5),
}
SIGNATURE_SHAPE = SOURCE_TYPE_DEFAULTS["impulse_signature"].shape

_INSERT = (
    "INSERT INTO concept (id, org_id, project_id, name, shape, summary, content, priority, "
    "budget, scope, public, metadata, source_type, signature_pointer_type, signature_shape, "
    "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def _concept(row: Row) -> Concept:
    data = row_dict(row)
    data["public"] = bool(data["public"])
    return Concept.model_validate(data)


def concept_by_id(s: Session, concept_id: str) -> Concept:
    row = s.conn.execute(
        "SELECT * FROM concept WHERE id = ? AND org_id = ?", (concept_id, s.org)
    ).fetchone()
    if row is None:
        raise NotFound(
            f"No concept {concept_id} in your org.",
            remedy="Use an id returned by a concept write, or upsert the signature first.",
        )
    return _concept(row)


def missing_concepts(s: Session, ids: list[str]) -> list[str]:
    """The ids of `ids` that name no concept of the caller's org, in the given order."""
    wanted = list(dict.fromkeys(ids))
    marks = ",".join("?" * len(wanted))
    found = {
        r[0]
        for r in s.conn.execute(
            f"SELECT id FROM concept WHERE org_id = ? AND id IN ({marks})", (s.org, *wanted)
        )
    }
    return [i for i in wanted if i not in found]


def _insert(
    s: Session,
    req: CreateConceptRequest,
    *,
    signature: tuple[str, str] | None = None,
) -> Concept:
    concept_id = new_id("concept")
    s.conn.execute(
        _INSERT,
        (
            concept_id,
            s.org,
            req.project_id,
            req.name,
            req.shape,
            req.summary,
            req.content,
            0.5 if req.priority is None else req.priority,
            req.budget,
            req.scope,
            int(req.public),
            json.dumps(req.metadata),
            req.source_type,
            signature[0] if signature else None,
            signature[1] if signature else None,
            s.now,
            s.now,
        ),
    )
    concept = concept_by_id(s, concept_id)
    s.fire("concept:created", concept=concept.model_dump())
    return concept


def create_concept(s: Session, req: CreateConceptRequest) -> Concept:
    return _insert(s, req)


def create_from_source(s: Session, req: ConceptFromSource) -> Concept:
    defaults = SOURCE_TYPE_DEFAULTS.get(req.source_type)
    if defaults is None:
        raise ValidationFailed(
            f"source_type {req.source_type!r} is not known; "
            f"use one of: {', '.join(SOURCE_TYPE_DEFAULTS)}.",
            remedy="Pick a known source_type, or use concept_create_write with explicit fields.",
        )
    first_line = req.content.strip().splitlines()[0] if req.content.strip() else req.source_type
    explicit = CreateConceptRequest(
        name=req.name or first_line[:80],
        shape=defaults.shape,
        content=req.content,
        source_type=req.source_type,
        summary=req.summary,
        priority=defaults.priority if req.priority is None else req.priority,
        budget=defaults.budget if req.budget is None else req.budget,
        scope=req.scope,
        public=req.public,
        project_id=req.project_id,
        metadata=req.metadata,
    )
    return _insert(s, explicit)


def upsert_by_signature(s: Session, req: SignatureUpsertRequest) -> SignatureUpsertResult:
    """The concept keyed on (pointer_type, shape) in the caller's org; created once."""
    row = s.conn.execute(
        "SELECT id FROM concept WHERE org_id = ? AND signature_pointer_type = ? "
        "AND signature_shape = ?",
        (s.org, req.pointer_type, req.shape),
    ).fetchone()
    if row is not None:
        return SignatureUpsertResult(id=row[0], created=False)
    created = _insert(
        s,
        CreateConceptRequest(
            name=f"{req.pointer_type}:{req.shape}",
            shape=SIGNATURE_SHAPE,
            summary=req.summary,
            source_type="impulse_signature",
            priority=SOURCE_TYPE_DEFAULTS["impulse_signature"].priority,
            budget=SOURCE_TYPE_DEFAULTS["impulse_signature"].budget,
            project_id=req.project_id,
            metadata=req.metadata,
        ),
        signature=(req.pointer_type, req.shape),
    )
    return SignatureUpsertResult(id=created.id, created=True)


def resolve_concept(s: Session, concept_id: str) -> Concept:
    """Load a concept for use: counts the load, so this read changes state."""
    s.conn.execute(
        "UPDATE concept SET loads = loads + 1 WHERE id = ? AND org_id = ?", (concept_id, s.org)
    )
    concept = concept_by_id(s, concept_id)  # not-found when it is not the caller's
    s.fire("concept:resolved", concept=concept.model_dump())
    return concept
