"""Edges between concepts, with an exponential moving average as their weight.

Linking (from, to, edge_type) the first time stores the observed weight; every later link of
the same triple moves it: weight = alpha * observed + (1 - alpha) * previous, with alpha from
`impulses.ema_alpha` (default 0.2), and counts the observation.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from groundnote.domain.errors import NotFound
from groundnote.impulses.concepts import concept_by_id, missing_concepts
from groundnote.impulses.models import Edge, LinkData
from groundnote.impulses.session import Session, new_id, row_dict
from groundnote.store.sql import Row

__all__ = [
    "CooccurrenceEdge",
    "CooccurrenceEdges",
    "RelatedConcept",
    "RelatedConcepts",
    "cooccurrence_edges",
    "link_concepts",
    "related_concepts",
]

# The moving average of an edge's weight, clamped to [0, 1] by the CASE around it (SQLite's
# two-argument min and max are no PostgreSQL functions).
_EMA = "(:alpha * excluded.weight + (1 - :alpha) * concept_edge.weight)"
_UPSERT = (
    "INSERT INTO concept_edge (id, org_id, from_concept_id, to_concept_id, edge_type, weight, "
    "count, metadata, created_at, updated_at) VALUES (:id, :org, :from_id, :to_id, :edge_type, "
    ":weight, 1, :metadata, :now, :now) "
    "ON CONFLICT (org_id, from_concept_id, to_concept_id, edge_type) DO UPDATE SET "
    f"weight = CASE WHEN {_EMA} > 1.0 THEN 1.0 WHEN {_EMA} < 0.0 THEN 0.0 ELSE {_EMA} END, "
    "count = concept_edge.count + 1, "
    "metadata = json_patch(concept_edge.metadata, excluded.metadata), "
    "updated_at = excluded.updated_at "
    "RETURNING *"
)


def _edge(row: Row) -> Edge:
    data = row_dict(row)
    return Edge.model_validate({**data, "created": data["count"] == 1})


def link_concepts(s: Session, data: LinkData) -> Edge:
    missing = missing_concepts(s, [data.from_concept_id, data.to_concept_id])
    if missing:
        raise NotFound(
            f"No concept {', '.join(missing)} in your org; an edge needs both ends.",
            remedy="Create or upsert both concepts first, then link them.",
        )
    row = s.conn.execute(
        _UPSERT,
        {
            "id": new_id("edge"),
            "org": s.org,
            "from_id": data.from_concept_id,
            "to_id": data.to_concept_id,
            "edge_type": data.edge_type,
            "weight": data.weight,
            "metadata": json.dumps(data.metadata),
            "now": s.now,
            "alpha": s.config.ema_alpha,
        },
    ).fetchone()
    edge = _edge(row)
    s.fire("edge:created" if edge.created else "edge:updated", edge=edge.model_dump())
    return edge


class RelatedConcept(BaseModel):
    concept_id: str
    name: str
    shape: str
    edge_type: str
    direction: str = Field(description="out: the given concept points to it; in: it points back.")
    weight: float
    count: int


class RelatedConcepts(BaseModel):
    concept_id: str
    related: list[RelatedConcept]


def related_concepts(
    s: Session, concept_id: str, *, edge_type: str | None, min_weight: float, limit: int
) -> RelatedConcepts:
    concept_by_id(s, concept_id)
    rows = s.conn.execute(
        "SELECT c.id, c.name, c.shape, e.edge_type, e.direction, e.weight, e.count FROM ("
        "  SELECT to_concept_id AS other, edge_type, 'out' AS direction, weight, count"
        "  FROM concept_edge WHERE org_id = :org AND from_concept_id = :id"
        "  UNION ALL"
        "  SELECT from_concept_id, edge_type, 'in', weight, count"
        "  FROM concept_edge WHERE org_id = :org AND to_concept_id = :id) AS e "
        "JOIN concept c ON c.id = e.other AND c.org_id = :org "
        "WHERE (:edge_type IS NULL OR e.edge_type = :edge_type) AND e.weight >= :min_weight "
        "ORDER BY e.weight DESC, e.count DESC, c.id LIMIT :limit",
        {
            "org": s.org,
            "id": concept_id,
            "edge_type": edge_type,
            "min_weight": min_weight,
            "limit": limit,
        },
    ).fetchall()
    return RelatedConcepts(
        concept_id=concept_id,
        related=[
            RelatedConcept(
                concept_id=r[0],
                name=r[1],
                shape=r[2],
                edge_type=r[3],
                direction=r[4],
                weight=r[5],
                count=r[6],
            )
            for r in rows
        ],
    )


class CooccurrenceEdge(BaseModel):
    from_concept_id: str
    from_signature: str = Field(description="pointer_type:shape of the source concept.")
    to_concept_id: str
    to_signature: str
    edge_type: str
    weight: float
    count: int


class CooccurrenceEdges(BaseModel):
    edges: list[CooccurrenceEdge]


def cooccurrence_edges(
    s: Session,
    *,
    edge_type: str | None,
    pointer_type: str | None,
    min_weight: float,
    min_count: int,
    limit: int,
) -> CooccurrenceEdges:
    """Edges between impulse-signature concepts: which impulse shapes occur together."""
    rows = s.conn.execute(
        "SELECT e.from_concept_id, a.signature_pointer_type || ':' || a.signature_shape, "
        "e.to_concept_id, b.signature_pointer_type || ':' || b.signature_shape, "
        "e.edge_type, e.weight, e.count "
        "FROM concept_edge e "
        "JOIN concept a ON a.id = e.from_concept_id AND a.org_id = e.org_id "
        "JOIN concept b ON b.id = e.to_concept_id AND b.org_id = e.org_id "
        "WHERE e.org_id = :org AND a.signature_pointer_type IS NOT NULL "
        "AND b.signature_pointer_type IS NOT NULL "
        "AND (:edge_type IS NULL OR e.edge_type = :edge_type) "
        "AND (:pointer_type IS NULL OR a.signature_pointer_type = :pointer_type "
        "     OR b.signature_pointer_type = :pointer_type) "
        "AND e.weight >= :min_weight AND e.count >= :min_count "
        "ORDER BY e.weight DESC, e.count DESC, e.id LIMIT :limit",
        {
            "org": s.org,
            "edge_type": edge_type,
            "pointer_type": pointer_type,
            "min_weight": min_weight,
            "min_count": min_count,
            "limit": limit,
        },
    ).fetchall()
    return CooccurrenceEdges(
        edges=[
            CooccurrenceEdge(
                from_concept_id=r[0],
                from_signature=r[1],
                to_concept_id=r[2],
                to_signature=r[3],
                edge_type=r[4],
                weight=r[5],
                count=r[6],
            )
            for r in rows
        ]
    )
