"""The similar-duplicate rule of create and update (seed 000 §4, issue 21): place counts.

Seed 000 §4 refuses a create (and an update's new name or alias) when resolve finds an entity
of the same type scoring ≥ 0.85 anywhere in the scope. Measured on 10,000 distinct entities
that refused 30–48 % of the creates, most of them a project or a person under another
organisation or department, and an agent refused that often learns to send `force: true`
every time. The rule here:

* **Refused** (`duplicate-candidate`; `force: true` with a reason overrides, as before):
  a candidate of the same type scoring ≥ 0.85 *under the same parent* (the same level for a
  top-level entity), or one *equal after normalisation* wherever it sits — the name or an
  alias of the new entity, normalised and without academic titles, equals the candidate's
  name or one of its aliases (match `exact` or `alias`): `Koehler & Söhne KG` for `Köhler &
  Söhne GmbH`, `Dr. Anna Weiß` for `Anna Weiss` under another department.
* **Shown, not refused**: a candidate scoring ≥ 0.85 under another parent that is not equal
  after normalisation (a typo apart, the same words in another order). The answer lists it
  under `similar`, so the agent can ask whether the two are one, and the create goes through.
* Scoring already keeps a differing number, an added word and a replaced word below 0.85
  (graph/scoring.py), so those never reach this rule.

The literal check of §4 (same parent, same type, same name case-insensitively, never
overridden) is unchanged and runs before this one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from groundnote.graph.normalize import normalize
from groundnote.graph.resolve import RECALL_LIMIT, Match, resolve_key
from groundnote.graph.scoring import DUPLICATE_SCORE
from groundnote.graph.trigram import TrigramIndex

__all__ = ["SHOWN", "Similar", "similar_entities"]

SHOWN = 5
_EQUAL = ("exact", "alias")


@dataclass
class Similar:
    """The candidates the rule refuses for, and those it only shows."""

    refusing: list[Match] = field(default_factory=list)
    elsewhere: list[Match] = field(default_factory=list)


def similar_entities(
    index: TrigramIndex,
    type: str,
    texts: list[str],
    exclude: str | None,
    parent_id: str | None,
) -> Similar:
    """Resolve each text (the name and the aliases) and split the candidates by the rule."""
    best: dict[str, Match] = {}
    for text in texts:
        # Every candidate over the threshold, not five: a sibling may rank below several
        # equally named entities elsewhere and must still refuse.
        for match in resolve_key(
            index,
            normalize(text),
            type=type,
            exclude=exclude,
            min_score=DUPLICATE_SCORE,
            limit=RECALL_LIMIT,
        ):
            if match.id not in best or best[match.id].score < match.score:
                best[match.id] = match
    ranked = sorted(best.values(), key=lambda m: (-m.score, m.level, m.id))
    found = Similar()
    for match in ranked:
        if match.match in _EQUAL or match.parent_id == parent_id:
            found.refusing.append(match)
        else:
            found.elsewhere.append(match)
    del found.refusing[SHOWN:], found.elsewhere[SHOWN:]
    return found
