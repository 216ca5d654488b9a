"""entity_resolve (seed 000 §5 with DESIGN §8.0): recall, score, order, at most five.

Recall is served by the in-memory index: the exact pass (normalised name or alias equals the
key), the trigram pass (the 50 entities most similar by shared trigrams, Jaccard, exactly) and
the initials pass (capped): one token of 2–6 letters asks for token initials (`vn`), initials
and a surname (`m franke`, `franke m`) ask for the persons with that first initial and last
name. Scores per entity are the best over its name and aliases (graph/scoring.py holds the
kinds and why a differing number or word is scored as another thing, not a typo).

Order: score, then the candidate whose name or alias, case-folded, is the query's literal text
(`Köhler & Söhne GmbH` before `Koehler & Söhne GmbH`, `Lakeside Holdings plc` before `… Ltd`,
all 1.0 after normalisation), then active before unconfirmed, smaller depth, id. The
candidates' rows and paths come from the index too (graph/current.py), so a resolve asks the
store nothing but the index's catch-up.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from groundnote.domain.guidance import PathItem
from groundnote.graph.current import Current
from groundnote.graph.normalize import match_form
from groundnote.graph.scoring import DUPLICATE_SCORE, MIN_SCORE, Key, weights
from groundnote.graph.trigram import TrigramIndex
from groundnote.store.sql import Row

__all__ = [
    "DUPLICATE_SCORE",
    "MAX_CANDIDATES",
    "MIN_SCORE",
    "Match",
    "initials_pass",
    "recall",
    "resolve_key",
    "score_text",
]

MAX_CANDIDATES = 5
RECALL_LIMIT = 50
INITIALS_CAP = 100
ROW_BATCH = 8

_STATUS_ORDER = {"active": 0, "unconfirmed": 1, "archived": 2}


@dataclass
class Match:
    seq: int
    id: str
    type: str
    name: str
    aliases: list[str]
    status: str
    parent_id: str | None
    level: int
    score: float
    match: str
    path: list[str] = field(default_factory=list)
    trail: list[PathItem] = field(default_factory=list)  # the path with ids and types

    @classmethod
    def from_row(cls, row: Row, *, score: float, match: str, level: int) -> Match:
        """A candidate from an entity's current row read in a write (`seq`, `id`, `type`,
        `name`, `aliases`, `status`, `parent_id`), scored and placed at `level`."""
        return cls(
            seq=row["seq"],
            id=row["id"],
            type=row["type"],
            name=row["name"],
            aliases=json.loads(row["aliases"]),
            status=row["status"],
            parent_id=row["parent_id"],
            level=level,
            score=score,
            match=match,
        )

    @classmethod
    def of(cls, entity: Current, *, score: float, match: str) -> Match:
        """A candidate from an entity's current row, scored, without its path (`place`)."""
        return cls(
            seq=entity.seq,
            id=entity.id,
            type=entity.type,
            name=entity.name,
            aliases=entity.aliases,
            status=entity.status,
            parent_id=entity.parent_id,
            level=entity.level,
            score=score,
            match=match,
        )

    def place(self, entity: Current) -> Match:
        """Give the match its path, top level first (`trail`, and `path` its names)."""
        self.trail = entity.trail()
        self.path = [item.name for item in self.trail]
        return self


def score_text(key: str, text: str, *, is_name: bool) -> tuple[float, str]:
    """Score one normalised text against the key, unweighted; (0, "") when nothing fits."""
    return Key(key).score(text, is_name=is_name)


def recall(index: TrigramIndex, key: str) -> set[int]:
    """The seqs the three passes of §5.2 bring to scoring."""
    seqs = index.exact(key)
    if len(key) >= 3:
        seqs.update(index.similar(key, RECALL_LIMIT))
    seqs.update(initials_pass(index, key))
    return seqs


def initials_pass(index: TrigramIndex, key: str) -> list[int]:
    """§5.2 step 4: for a key of one token of 2–6 letters, the entities with those initials;
    for initials and a surname (`m franke`), the entities with that first initial and last
    name (titles left out)."""
    form = match_form(key)
    if " " not in form and 2 <= len(form) <= 6 and form.isalpha():
        return index.by_initials(form, INITIALS_CAP)
    person = Key(form).person_lookup
    return index.by_initials(person, INITIALS_CAP) if person else []


def resolve_key(
    index: TrigramIndex,
    key: str,
    *,
    type: str | None = None,
    exclude: str | None = None,
    min_score: float = MIN_SCORE,
    limit: int = MAX_CANDIDATES,
    recalled: set[int] | None = None,
    query: str | None = None,
) -> list[Match]:
    """Candidates for an already normalised key, best first (seed §5.3 ordering).

    `query`, the text as given, puts a candidate whose literal name or alias it is first among
    equal scores. `recalled` replaces the index's recall, so the benchmark can score the
    seed's literal FTS5 recall the same way.
    """
    seqs = recall(index, key) if recalled is None else recalled
    found_texts = index.texts_of(seqs)
    # The key's own tokens too: one no entity holds is the rarest of all, not a default.
    tokens = sorted(
        {t for texts in found_texts.values() for x in texts for t in x.split()} | set(key.split())
    )
    total, counts = index.token_counts(tokens)
    scorer = Key(key, weights(total, zip(tokens, counts, strict=True)), floor=min_score)
    ranked = _in_order(scorer, found_texts, min_score)
    scored: list[tuple[float, str, int]] = []

    def upto(count: int) -> int:
        """Finish scoring until `count` are known in order (or none are left)."""
        count = min(count, RECALL_LIMIT + INITIALS_CAP)
        while len(scored) < count:
            following = next(ranked, None)
            if following is None:
                break
            scored.append(following)
        return min(count, len(scored))

    found: list[Match] = []
    held: dict[int, Current] = {}
    start = 0
    # Candidates are taken in score order, a batch at a time, each batch closed where the
    # reported (rounded) score changes: once `limit` pass the filters, nothing not yet scored
    # can outrank them, because the tie-breakers (status, depth, id) only order equal scores.
    while start < upto(start + 1) and len(found) < limit:
        # No more than are still wanted: finishing the scores of a whole batch of eight when
        # five are wanted costs more than the occasional second batch.
        end = upto(start + min(ROW_BATCH, limit - len(found)))
        while end < upto(end + 1) and round(scored[end][0], 4) == round(scored[end - 1][0], 4):
            end += 1
        batch = {seq: (score, kind) for score, kind, seq in scored[start:end]}
        start = end
        for seq, entity in index.current(batch).items():
            if entity.status == "archived" or (type and entity.type != type):
                continue
            if entity.id == exclude:
                continue
            score, kind = batch[seq]
            held[seq] = entity
            found.append(Match.of(entity, score=round(score, 4), match=kind))
    literal = (query or "").strip().casefold()
    found.sort(
        key=lambda m: (
            -m.score,
            not literal or not _is_literal(m, literal),
            _STATUS_ORDER[m.status],
            m.level,
            m.id,
        )
    )
    return [match.place(held[match.seq]) for match in found[:limit]]


def _in_order(
    scorer: Key, texts_of: dict[int, tuple[str, ...]], min_score: float
) -> Iterator[tuple[float, str, int]]:
    """(score, kind, seq) of the entities scoring ≥ min_score, best first, ties by seq.

    Each entity's cheap upper bound orders the work: an entity is finished (its overlap and
    word pairing computed) only when no finished one outranks every bound still open, so a
    resolve that needs five candidates finishes a few dozen, not every one recalled.
    """
    bounds = [
        (b, seq) for seq, texts in texts_of.items() if (b := scorer.bound(texts)) >= min_score
    ]
    bounds.sort(key=lambda b: (-b[0], b[1]))
    done: list[tuple[float, int, str]] = []  # heap of (-score, seq, kind)
    at = 0
    while at < len(bounds) or done:
        # An open entity with a bound equal to the best finished score could tie it with a
        # smaller seq, so only a strictly higher score is sure of its place.
        if done and (at == len(bounds) or -done[0][0] > bounds[at][0]):
            score, seq, kind = heapq.heappop(done)
            yield -score, kind, seq
            continue
        _, seq = bounds[at]
        at += 1
        score, kind = scorer.best(texts_of[seq])
        if score >= min_score:
            heapq.heappush(done, (-score, seq, kind))


def _is_literal(match: Match, folded: str) -> bool:
    return any(text.strip().casefold() == folded for text in (match.name, *match.aliases))
