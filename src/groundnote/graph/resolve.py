"""entity_resolve (seed 000 §5 with DESIGN §8.0): recall, score, order, at most five.

Recall is served by the in-memory index: the exact pass (normalised name or alias equals the
key), the trigram pass (the 50 entities most similar by shared trigrams, Jaccard, exactly) and
the initials pass (capped). Scores per entity are the best over its name and aliases:

    exact     the normalised name equals the key                  1.00
    alias     a normalised alias equals the key                    0.95
    typo      OSA distance ≤ 2: max(1 − d/len, ratio), < alias    < 0.94
    tokens    the same tokens in another order                     0.90
    similar   ratio (rapidfuzz, Indel) of the two strings         ≤ 0.89
    initials  the key (one token, 2–6 letters) = token initials    0.80

The typo score keeps the order of max(1 − d/len, ratio) all the way up: the part above 0.90 is
pressed linearly into 0.90–0.94 instead of being cut at 0.94. Cutting gave every one- and
two-edit candidate of a name of 20+ characters the same 0.94, so depth and id, not distance,
chose between "buchhaltung hessen 1144" (one edit from the query "buchhaltung hessen 114")
and "buchhaltung hessen 811" (two). Scores at or below 0.90 are unchanged, so the thresholds
0.50 and 0.85 decide exactly as before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from groundnote.graph.normalize import initials
from groundnote.graph.trigram import TrigramIndex

__all__ = [
    "DUPLICATE_SCORE",
    "MAX_CANDIDATES",
    "MIN_SCORE",
    "Match",
    "initials_pass",
    "path_names",
    "recall",
    "resolve_key",
    "score_text",
]

MIN_SCORE = 0.50
DUPLICATE_SCORE = 0.85
MAX_CANDIDATES = 5
RECALL_LIMIT = 50
INITIALS_CAP = 100
TYPO_LIMIT = 2
ROW_BATCH = 8

EXACT, ALIAS, TOKENS, INITIALS = 1.0, 0.95, 0.90, 0.80
TYPO_KNEE, TYPO_CEILING, SIMILAR_CEILING = 0.90, 0.94, 0.89
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

    @classmethod
    def from_row(cls, row: sqlite3.Row, *, score: float, match: str, level: int) -> Match:
        """A candidate from an entity's current row (`seq`, `id`, `type`, `name`, `aliases`,
        `status`, `parent_id`), scored and placed at `level`."""
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


def score_text(key: str, text: str, *, is_name: bool) -> tuple[float, str]:
    """Score one normalised text against the key; (0, "") when nothing fits."""
    return _Key(key).score(text, is_name=is_name)


class _Key:
    """A key with what every text is scored against computed once, not once per text."""

    __slots__ = ("initials", "sorted_tokens", "text")

    def __init__(self, key: str) -> None:
        self.text = key
        tokens = key.split()
        self.sorted_tokens = sorted(tokens) if len(tokens) > 1 else None
        self.initials = len(tokens) == 1 and 2 <= len(key) <= 6 and key.isalpha()

    def score(self, text: str, *, is_name: bool) -> tuple[float, str]:
        key = self.text
        if text == key:
            return (EXACT, "exact") if is_name else (ALIAS, "alias")
        if self.sorted_tokens is not None and self.sorted_tokens == sorted(text.split()):
            return TOKENS, "tokens"
        ratio = fuzz.ratio(key, text) / 100
        # score_cutoff bounds the walk to the band |i - j| ≤ 2 and stops early (seed §5.3).
        distance = OSA.distance(key, text, score_cutoff=TYPO_LIMIT)
        if distance <= TYPO_LIMIT:
            typo = max(1 - distance / max(len(key), len(text)), ratio)
            if typo > TYPO_KNEE:  # below 1: the texts differ, so d ≥ 1 and ratio < 1
                typo = TYPO_KNEE + (typo - TYPO_KNEE) * (TYPO_CEILING - TYPO_KNEE) / (1 - TYPO_KNEE)
            return typo, "typo"
        if self.initials and initials(text) == key:
            return INITIALS, "initials"
        return min(ratio, SIMILAR_CEILING), "similar"

    def best(self, texts: tuple[str, ...]) -> tuple[float, str]:
        best = (0.0, "")
        for i, text in enumerate(texts):
            found = self.score(text, is_name=i == 0)
            if found[0] > best[0]:
                best = found
        return best


def recall(index: TrigramIndex, key: str) -> set[int]:
    """The seqs the three passes of §5.2 bring to scoring."""
    seqs = index.exact(key)
    if len(key) >= 3:
        seqs.update(index.similar(key, RECALL_LIMIT))
    seqs.update(initials_pass(index, key))
    return seqs


def initials_pass(index: TrigramIndex, key: str) -> list[int]:
    """§5.2 step 4: for a key of one token of 2–6 letters, the entities with those initials."""
    if " " not in key and 2 <= len(key) <= 6 and key.isalpha():
        return index.by_initials(key, INITIALS_CAP)
    return []


def resolve_key(
    conn: sqlite3.Connection,
    index: TrigramIndex,
    key: str,
    *,
    type: str | None = None,
    exclude: str | None = None,
    min_score: float = MIN_SCORE,
    limit: int = MAX_CANDIDATES,
    recalled: set[int] | None = None,
) -> list[Match]:
    """Candidates for an already normalised key, best first (seed §5.3 ordering).

    `recalled` replaces the index's recall, so the benchmark can score the seed's literal
    FTS5 recall the same way.
    """
    seqs = recall(index, key) if recalled is None else recalled
    scored = []
    scorer = _Key(key)
    for seq, texts in index.texts_of(seqs).items():
        score, kind = scorer.best(texts)
        if score >= min_score:
            scored.append((score, kind, seq))
    scored.sort(key=lambda s: (-s[0], s[2]))
    del scored[RECALL_LIMIT + INITIALS_CAP :]
    found: list[Match] = []
    start = 0
    # Rows are read in score order, a batch at a time, each batch closed where the reported
    # (rounded) score changes: once `limit` candidates pass the filters, nothing unread can
    # outrank them, because the tie-breakers (status, depth, id) only order equal scores.
    while start < len(scored) and len(found) < limit:
        end = min(start + ROW_BATCH, len(scored))
        while end < len(scored) and round(scored[end][0], 4) == round(scored[end - 1][0], 4):
            end += 1
        batch = {seq: (score, kind) for score, kind, seq in scored[start:end]}
        start = end
        for row in _rows(conn, batch):
            if row["status"] == "archived" or (type and row["type"] != type):
                continue
            if row["id"] == exclude:
                continue
            score, kind = batch[row["seq"]]
            found.append(Match.from_row(row, score=round(score, 4), match=kind, level=row["level"]))
    found.sort(key=lambda m: (-m.score, _STATUS_ORDER[m.status], m.level, m.id))
    chosen = found[:limit]
    paths = path_names(conn, [m.id for m in chosen])
    for match in chosen:
        match.path = paths[match.id]
    return chosen


def _rows(conn: sqlite3.Connection, seqs: Iterable[int]) -> list[sqlite3.Row]:
    wanted = list(seqs)
    marks = ",".join("?" * len(wanted))
    return conn.execute(
        "SELECT e.seq, e.id, k.type, k.name, k.aliases, k.status, k.parent_id, "
        "(SELECT count(*) FROM entity_closure c WHERE c.descendant_id = e.id) AS level "
        f"FROM entity e JOIN entity_current k ON k.id = e.id WHERE e.seq IN ({marks})",
        wanted,
    ).fetchall()


def path_names(conn: sqlite3.Connection, entity_ids: list[str]) -> dict[str, list[str]]:
    """The names from the top level down to each entity, itself included, in one query."""
    paths: dict[str, list[str]] = {entity_id: [] for entity_id in entity_ids}
    marks = ",".join("?" * len(entity_ids))
    for row in conn.execute(
        "SELECT c.descendant_id, k.name FROM entity_closure c "
        "JOIN entity_current k ON k.id = c.ancestor_id "
        f"WHERE c.descendant_id IN ({marks}) ORDER BY c.descendant_id, c.depth DESC",
        entity_ids,
    ):
        paths[row[0]].append(row[1])
    return paths
