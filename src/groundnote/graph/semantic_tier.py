"""The last tier of entity_resolve (issue 19): names near the query by embedding.

It runs only when spelling found nothing (no candidate scores ≥ MIN_SCORE, 0.50), so the
trigram path keeps its cost and every answer it gives today; and only with `search.semantic`
on. A suggestion, never a duplicate: every semantic score lies below MIN_SCORE, so it sorts
after any spelling candidate and stays far below DUPLICATE_SCORE (0.85); and the duplicate
check of create and update (graph/duplicates.py) never calls this tier, so a create whose only
neighbour is semantic goes through.

The local model's similarities of short names bunch together (unrelated names score
0.80-0.86, `Buchhaltung` for `accounting` 0.87): a name counts from
`search.entity_min_similarity` on and within `MARGIN` of the best one.
"""

from __future__ import annotations

from groundnote.config import SearchConfig
from groundnote.embedding import embedder_for
from groundnote.graph.name_vectors import name_vectors
from groundnote.graph.resolve import MAX_CANDIDATES, MIN_SCORE, Match
from groundnote.graph.trigram import index_for
from groundnote.store import Database

__all__ = ["MARGIN", "SCORE_CEILING", "SCORE_FLOOR", "semantic_candidates"]

MARGIN = 0.03
# A similarity from the floor up to 1 is reported in [SCORE_FLOOR, SCORE_CEILING]: below every
# candidate spelling finds.
SCORE_FLOOR = 0.25
SCORE_CEILING = MIN_SCORE - 0.01


def _score(similarity: float, floor: float) -> float:
    span = max(1e-9, 1.0 - floor)
    share = min(1.0, max(0.0, (similarity - floor) / span))
    return round(SCORE_FLOOR + share * (SCORE_CEILING - SCORE_FLOOR), 4)


def semantic_candidates(
    db: Database,
    config: SearchConfig,
    query: str,
    *,
    type: str | None = None,
    limit: int = MAX_CANDIDATES,
) -> list[Match]:
    """Entities whose name or alias is near `query` by embedding, best first, `match`
    "semantic"; [] when semantic search is off. Embeds pending names first (bounded)."""
    if config.semantic == "off":
        return []
    embedder = embedder_for(config)
    vectors = name_vectors(db, embedder)
    vectors.catch_up()
    floor = config.entity_min_similarity
    # Archived and other-typed entities are dropped after the read: ask for more than shown.
    near = vectors.nearest(embedder.query(query), 4 * limit, floor)
    if not near:
        return []
    top = near[0][2]
    near = [item for item in near if item[2] >= top - MARGIN]
    held = index_for(db).current(seq for seq, _, _ in near)
    found = []
    for seq, text, similarity in near:
        entity = held.get(seq)
        if entity is None or entity.status == "archived" or (type and entity.type != type):
            continue
        match = Match.of(entity, score=_score(similarity, floor), match="semantic")
        # A vector of a text renamed since (its catch-up still to come) suggests nothing.
        if text in (match.name, *match.aliases):
            found.append(match.place(entity))
        if len(found) == limit:
            break
    return found
