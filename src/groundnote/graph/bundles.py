"""The graph's part of the search bundles (seed 000 §11, G5, G8; DESIGN §7).

Core builds bundles from group providers and head enrichers it does not know; this module
supplies the `entity`, `contradicts` and `same-relation` groups, `head.entities`, and the
`entity` filter of search. The composition root (`runtime.py`) registers them with core's
hooks; importing this module registers nothing.

Every link shown or used here is counted per G5 and open on the bundle's day (as_of or
today): computed, deterministic and human links always; a proposed link once a person
confirmed it, or while its confidence reaches `graph.proposed_min_confidence` and nobody
rejected it; a rejected link never. An entry hanging on a proposed, unconfirmed link says so
(`origin`, `proposed`). The Python path (`entities_linked_to_rule` with `counted`) and the SQL
path below (`_counted`) state the same rule for the two shapes of question.

Departure from seed 000 §11 (DESIGN §15 P8): besides the rule's own links, an entity that a
source of the rule's evidence (or a cited attachment) concerns or is filed under counts for
the rule, marked `via` that source: in the entity group, head.entities, same-relation and the
entity filter. A mail filed under a customer thus makes the rule it backs findable by that
customer before anyone links the rule itself; the rule's own link, once made, shows instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from groundnote.config import Config
from groundnote.core import (
    BundleContext,
    Entry,
    GroupKind,
    Head,
    HeadEntity,
    HeadPathItem,
    HeadRestriction,
)
from groundnote.domain.errors import ReferenceUnknown, ScopeMismatch
from groundnote.graph.entities import scope_of
from groundnote.graph.grouped import VIA_SOURCE_TYPES, LinkedEntity, entities_of_rules
from groundnote.store.sql import Connection, Row, in_list

__all__ = [
    "GROUP_PROVIDERS",
    "ContradictsGroup",
    "EntityGroup",
    "SameRelationGroup",
    "entity_filter",
    "head_entities",
]

HEAD_ENTITIES_MAX = 10
RULES_MAX = 10
TITLE_MAX = 200
_ENTITY_LINKS = "('concerns', 'belongs_to', 'mentions')"
_VIA_LINKS = "(" + ", ".join(f"'{t}'" for t in VIA_SOURCE_TYPES) + ")"


def _open(prefix: str) -> str:
    """The link `l` is open on the day :<prefix>day (its instants cut to days)."""
    return (
        f"substr(l.valid_from, 1, 10) <= :{prefix}day "
        f"AND (l.valid_to IS NULL OR substr(l.valid_to, 1, 10) > :{prefix}day)"
    )


def _counted(prefix: str, minimum: float | None) -> str:
    """G5 in SQL for the link `l`; a minimum confidence (`_confidence`'s parameter) adds
    the unreviewed proposed links reaching it. Written out only when there is one: a
    statement testing `? IS NULL` is bound on the client on PostgreSQL, so never prepared,
    and these joins took longer to plan than to run (3-18 ms against 0.3 ms)."""
    confident = (
        ""
        if minimum is None
        else f"OR (l.confidence >= :{prefix}min_confidence AND NOT EXISTS (SELECT 1 FROM "
        "review v WHERE v.target = 'link/' || l.id AND v.verdict = 'reject'))"
    )
    return (
        "(l.origin <> 'proposed' "
        "OR EXISTS (SELECT 1 FROM review v WHERE v.target = 'link/' || l.id "
        f"AND v.verdict = 'confirm') {confident})"
    )


def _confidence(prefix: str, minimum: float | None) -> dict[str, float]:
    """The parameter `_counted` names, if it names one."""
    return {} if minimum is None else {f"{prefix}min_confidence": minimum}


_PROPOSED = (
    "(l.origin = 'proposed' AND NOT EXISTS (SELECT 1 FROM review v "
    "WHERE v.target = 'link/' || l.id AND v.verdict = 'confirm'))"
)


def _min_confidence(config: Config) -> float | None:
    return config.graph.proposed_min_confidence


def _end_of(day: str) -> str:
    # entities_linked_to_rule compares instants: a link is open on a day if it began by its end
    return day + "T23:59:59.999Z"


def _linked(ctx: BundleContext) -> list[LinkedEntity]:
    """The head's entities, read once per page for the entity group, head.entities and
    same-relation: those linked to the rule, then those its sources concern (DESIGN §15 P8),
    each once."""
    found: list[LinkedEntity] = _page_linked(ctx).get(ctx.rule.id, [])
    return found


def _page_linked(ctx: BundleContext) -> dict[str, list[LinkedEntity]]:
    """`_linked` of every head of the page."""
    return ctx.for_page(
        "graph.entities",
        lambda heads: entities_of_rules(
            ctx.conn, [h.id for h in heads], _min_confidence(ctx.config), _end_of(ctx.as_of)
        ),
    )


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class EntityGroup:
    """Entities the head concerns, belongs to or mentions, then those its sources concern or
    are filed under (marked `via` the source); titled by their path."""

    kind: GroupKind = "entity"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        return [
            Entry.model_validate(
                {
                    "kind": "entity",
                    "ref": e.ref,
                    "title": " › ".join(p.name for p in e.path),
                    "date": e.valid_from[:10],
                    "excerpt": None,
                    "origin": e.origin,
                    "proposed": e.proposed,
                    "via": e.via,
                }
            )
            for e in _linked(ctx)
        ]

    def line_part(self, entries: list[Entry]) -> str:
        return _plural(len(entries), "entity", "entities")


def head_entities(ctx: BundleContext, head: Head) -> Head:
    """`head.entities`: the first ten of the entity group, each with its path."""
    entities = [
        HeadEntity(
            ref=e.ref,
            name=e.name,
            type=e.type,
            path=[HeadPathItem(ref=f"entity/{p.id}", name=p.name, type=p.type) for p in e.path],
            proposed=e.proposed,
            via=e.via,
        )
        for e in _linked(ctx)[:HEAD_ENTITIES_MAX]
    ]
    return head.model_copy(update={"entities": entities})


_RULE_COLUMNS = (
    "r.id, r.statement, r.valid_from, st.status, l.origin, l.confidence, "
    f"l.valid_from AS linked_from, {_PROPOSED} AS link_proposed"
)
# The rule's entities (:e<n>) and the entities above them, not archived; `c.descendant_id`
# says which of the rule's entities a row was found through.
_TO_TARGETS = (
    "JOIN entity_closure c ON l.to_ref = 'entity/' || c.ancestor_id "
    "JOIN entity_current k ON k.id = c.ancestor_id AND k.status <> 'archived'"
)


def _via_source(prefix: str, targets: str, minimum: float | None) -> str:
    """SQL for the rule ids whose evidence source, or a cited attachment, has a counted link
    (concerns, belongs_to) open on the day to one of `targets` (DESIGN §15 P8)."""
    common = (
        f"l.type IN {_VIA_LINKS} AND l.to_ref IN ({targets}) AND {_open(prefix)} "
        f"AND {_counted(prefix, minimum)}"
    )
    return (
        "SELECT e.rule_id FROM link l JOIN rule_evidence e ON e.source_id = substr(l.from_ref, 8) "
        f"WHERE substr(l.from_ref, 1, 7) = 'source/' AND {common} "
        "UNION SELECT e.rule_id FROM link l JOIN rule_evidence e "
        "ON l.from_ref = 'attachment/' || e.source_id || '#' || e.n "
        f"WHERE substr(l.from_ref, 1, 11) = 'attachment/' AND {common}"
    )


@dataclass(frozen=True)
class _RuleQuery:
    """One way rules reach a group: the joins from the link `l` to the rule `r`, the
    condition on `l`, what the entry is reached through (SQL; NULL: a link of its own), and
    `key`: SQL for the head or entity of the page the row belongs to."""

    joins: str
    where: str
    key: str
    via: str = "NULL"


def _rule_rows(
    ctx: BundleContext, queries: list[_RuleQuery], params: dict[str, Any]
) -> dict[str, list[Row]]:
    """The rows of every query for the whole page, by their `key`: one statement."""
    out: dict[str, list[Row]] = {}
    minimum = _min_confidence(ctx.config)
    union = " UNION ALL ".join(
        f"SELECT {_RULE_COLUMNS}, {query.via} AS via, {query.key} AS page_key FROM link l "
        f"{query.joins} JOIN rule_state st ON st.id = r.id WHERE {query.where} "
        f"AND {_open('')} AND {_counted('', minimum)} AND {ctx.head_sql}"
        for query in queries
    )
    for row in ctx.conn.execute(union, {"day": ctx.as_of, **_confidence("", minimum), **params}):
        out.setdefault(row["page_key"], []).append(row)
    return out


def _rule_entries(head: str, found: list[Row]) -> list[Entry]:
    """Rules passing the head filter, other than the head, each once, by the best link it
    hangs on: its own link before one through a source, not proposed first, then
    confidence, then the link's date (newest first)."""
    rows = [r for r in found if r["id"] != head]
    rows.sort(key=lambda r: r["linked_from"], reverse=True)
    rows.sort(
        key=lambda r: (
            r["via"] is not None,
            bool(r["link_proposed"]),
            -(r["confidence"] if r["confidence"] is not None else 1.0),
        )
    )
    entries: dict[str, Entry] = {}
    for row in rows:
        ref = f"rule/{row['id']}"
        if ref in entries:
            continue
        statement = row["statement"]
        entries[ref] = Entry.model_validate(
            {
                "kind": "rule",
                "ref": ref,
                "title": statement
                if len(statement) <= TITLE_MAX
                else statement[: TITLE_MAX - 1] + "…",
                "date": row["valid_from"],
                "excerpt": None,
                "status": row["status"],
                "origin": row["origin"],
                "proposed": bool(row["link_proposed"]) or row["status"] == "proposed",
                "via": row["via"],
            }
        )
    return list(entries.values())[:RULES_MAX]


def _named(prefix: str, values: list[str]) -> tuple[str, dict[str, str]]:
    """Named marks and parameters of an IN list, padded as `in_list` pads (the statement's
    text repeats across pages, so PostgreSQL keeps its prepared plan)."""
    _, padded = in_list(values)
    return ",".join(f":{prefix}{i}" for i in range(len(padded))), {
        f"{prefix}{i}": v for i, v in enumerate(padded)
    }


def _contradicting(ctx: BundleContext, heads: list[str]) -> dict[str, list[Row]]:
    marks, refs = _named("h", [f"rule/{h}" for h in heads])
    # a link from a head, and one to a head: both heads of a link on the page get it
    queries = [
        _RuleQuery(
            "JOIN rule r ON r.id = substr(l.to_ref, 6)",
            f"l.type = 'contradicts' AND l.from_ref IN ({marks})",
            key="substr(l.from_ref, 6)",
        ),
        _RuleQuery(
            "JOIN rule r ON r.id = substr(l.from_ref, 6)",
            f"l.type = 'contradicts' AND l.to_ref IN ({marks})",
            key="substr(l.to_ref, 6)",
        ),
    ]
    return _rule_rows(ctx, queries, refs)


class ContradictsGroup:
    """Rules linked to the head by contradicts, in either direction."""

    kind: GroupKind = "contradicts"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        found = ctx.for_page(
            "graph.contradicts", lambda heads: _contradicting(ctx, [h.id for h in heads])
        )
        return _rule_entries(ctx.rule.id, found.get(ctx.rule.id, []))

    def line_part(self, entries: list[Entry]) -> str:
        return _plural(len(entries), "contradicting rule", "contradicting rules")


def _same_relation(ctx: BundleContext) -> dict[str, list[Row]]:
    """The rows of same-relation for every entity of the page's heads, by that entity."""
    entities = sorted({e.id for linked in _page_linked(ctx).values() for e in linked})
    if not entities:
        return {}
    marks, named = _named("e", entities)
    targets = f"c.descendant_id IN ({marks})"
    own = _RuleQuery(
        f"{_TO_TARGETS} JOIN rule r ON r.id = substr(l.from_ref, 6)",
        f"l.type IN {_ENTITY_LINKS} AND substr(l.from_ref, 1, 5) = 'rule/' AND {targets}",
        key="c.descendant_id",
    )
    through_source = _RuleQuery(
        f"{_TO_TARGETS} JOIN rule_evidence e ON e.source_id = substr(l.from_ref, 8) "
        "JOIN rule r ON r.id = e.rule_id",
        f"l.type IN {_VIA_LINKS} AND substr(l.from_ref, 1, 7) = 'source/' AND {targets}",
        key="c.descendant_id",
        via="l.from_ref",
    )
    through_attachment = _RuleQuery(
        f"{_TO_TARGETS} JOIN rule_evidence e "
        "ON l.from_ref = 'attachment/' || e.source_id || '#' || e.n JOIN rule r ON r.id = e.rule_id",
        f"l.type IN {_VIA_LINKS} AND substr(l.from_ref, 1, 11) = 'attachment/' AND {targets}",
        key="c.descendant_id",
        via="l.from_ref",
    )
    return _rule_rows(ctx, [own, through_source, through_attachment], named)


class SameRelationGroup:
    """Other rules with a counted link to one of the head's entities or an entity above it
    (G8, through entity_closure), or whose sources have one (marked `via` the source). It
    adds no part to `line`: seed 000 §11 names none."""

    kind: GroupKind = "same-relation"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        found = ctx.for_page("graph.same_relation", lambda _: _same_relation(ctx))
        rows = [row for e in _linked(ctx) for row in found.get(e.id, [])]
        return _rule_entries(ctx.rule.id, rows)

    def line_part(self, entries: list[Entry]) -> str:
        return ""


GROUP_PROVIDERS = (EntityGroup(), ContradictsGroup(), SameRelationGroup())


def entity_filter(
    conn: Connection, config: Config, scope: str, entity_id: str, day: str
) -> HeadRestriction:
    """Search's `entity` input (G8): rules with a counted link, open on the day, to the entity
    or any entity above it, or whose evidence sources have one (DESIGN §15 P8). Unknown and foreign ids are refused as the graph's reads refuse them.
    """
    if scope_of(entity_id) != scope:
        raise ScopeMismatch(
            f"The entity {entity_id} belongs to another scope than {scope}.",
            remedy=f"Filter by an entity of {scope}, or search the entity's own scope.",
        )
    if conn.execute("SELECT 1 FROM entity WHERE id = ?", (entity_id,)).fetchone() is None:
        raise ReferenceUnknown(
            f"There is no entity {entity_id} in scope {scope}.",
            remedy="Find the entity with entity_resolve and filter by its id.",
            next=[{"tool": "entity_resolve", "why": "find the entity by name"}],
        )
    ancestors = (
        "SELECT 'entity/' || c.ancestor_id FROM entity_closure c WHERE c.descendant_id = :entity_id"
    )
    minimum = _min_confidence(config)
    return HeadRestriction(
        sql=(
            "SELECT substr(l.from_ref, 6) FROM link l WHERE "
            f"l.to_ref IN ({ancestors}) "
            f"AND l.type IN {_ENTITY_LINKS} AND substr(l.from_ref, 1, 5) = 'rule/' "
            f"AND {_open('entity_')} AND {_counted('entity_', minimum)} "
            f"UNION {_via_source('entity_', ancestors, minimum)}"
        ),
        params={"entity_id": entity_id, "entity_day": day, **_confidence("entity_", minimum)},
    )
