"""Everything about an entity (seed 000 §6 "Everything about X", §11 G5): the counted links of
the entity and its descendants, the other ends resolved to entries and grouped like a bundle.
Also the entities linked to a rule, which the search bundles (core) show in their head.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundnote.domain.guidance import PathItem
from groundnote.graph.links import counted, kind_of, reply_links, stored_links, subtree_links
from groundnote.graph.models import Entry, Group, LinkOut
from groundnote.graph.queries import PAGE_SIZE, path_items, paths_of
from groundnote.store.sql import Connection, in_list

__all__ = [
    "GROUP_ORDER",
    "VIA_SOURCE_TYPES",
    "LinkedEntity",
    "entities_linked_to_rule",
    "entities_of_rules",
    "entity_groups",
]

GROUP_ORDER = ("rule", "source", "thread", "attachment", "entity")
_HEAD_TYPES = ("concerns", "belongs_to", "mentions")
# A mail that concerns an entity, or is filed under it, makes the rules it backs about that
# entity too; one that names it only in passing (mentions) does not (DESIGN §15 P8).
VIA_SOURCE_TYPES = ("concerns", "belongs_to")


def _open(link: LinkOut, now: str) -> bool:
    return link.valid_from <= now and (link.valid_to is None or link.valid_to > now)


def _entry(conn: Connection, ref: str, link: LinkOut, via: list[str]) -> Entry | None:
    kind, value = kind_of(ref), ref.split("/", 1)[1]
    proposed = link.origin == "proposed" and link.status != "confirmed"
    common = {
        "ref": ref,
        "link_type": link.type,
        "origin": link.origin,
        "proposed": proposed,
        "confidence": link.confidence,
        "via": via,
    }
    if kind == "rule":
        row = conn.execute(
            "SELECT statement, valid_from FROM rule WHERE id = ?", (value,)
        ).fetchone()
        if row is None:
            return None
        return Entry(kind="rule", title=row["statement"], date=row["valid_from"], **common)
    if kind == "source":
        row = conn.execute("SELECT kind, title, day FROM source WHERE id = ?", (value,)).fetchone()
        if row is None:
            return None
        return Entry(kind=row["kind"], title=row["title"], date=row["day"], **common)
    if kind == "attachment":
        source_id, n = value.rsplit("#", 1)
        row = conn.execute(
            "SELECT a.filename, s.day FROM source_attachment a JOIN source s ON s.id = a.source_id "
            "WHERE a.source_id = ? AND a.n = ?",
            (source_id, int(n)),
        ).fetchone()
        if row is None:
            return None
        return Entry(kind="attachment", title=row["filename"], date=row["day"], **common)
    names = [p.name for p in path_items(conn, value)]
    if not names:
        return None
    return Entry(kind="entity", title=" › ".join(names), date=link.valid_from[:10], **common)


def entity_groups(
    conn: Connection,
    entity_id: str,
    min_confidence: float | None,
    now: str,
    page: int,
) -> tuple[list[Group], int]:
    """One page of the grouped entries about entity_id and its subtree, and the total."""
    paths: dict[str, list[str]] = {}
    found: dict[str, list[Entry]] = {kind: [] for kind in GROUP_ORDER}
    seen: set[tuple[str, str]] = set()
    for end in subtree_links(conn, entity_id, min_confidence, now):
        link = end.link
        # The end inside the subtree is `here`; both ends inside: listed once, under the target.
        here, other = (
            (link.to_ref, link.from_ref) if end.to_inside else (link.from_ref, link.to_ref)
        )
        if (other, here) in seen:
            continue
        seen.add((other, here))
        if here not in paths:
            paths[here] = [p.name for p in path_items(conn, here.removeprefix("entity/"))]
        entry = _entry(conn, other, link, paths[here])
        if entry is None:
            continue
        group = {"mail": "source", "meeting": "source", "note": "source"}.get(
            entry.kind, entry.kind
        )
        found[group].append(entry)
        if kind_of(other) == "source":
            for thread in reply_links(conn, other):
                mate = thread.to_ref if thread.from_ref == other else thread.from_ref
                if (mate, here) in seen:
                    continue
                seen.add((mate, here))
                extra = _entry(conn, mate, thread, paths[here])
                if extra is not None:
                    found["thread"].append(extra)
    ordered: list[tuple[str, Entry]] = []
    for kind in GROUP_ORDER:
        entries = sorted(found[kind], key=lambda e: (e.date or "", e.ref), reverse=True)
        ordered.extend((kind, e) for e in entries)
    start = (page - 1) * PAGE_SIZE
    groups: dict[str, list[Entry]] = {}
    for kind, entry in ordered[start : start + PAGE_SIZE]:
        groups.setdefault(kind, []).append(entry)
    return [Group(kind=k, entries=v) for k, v in groups.items()], len(ordered)


@dataclass(frozen=True)
class LinkedEntity:
    ref: str
    id: str
    name: str
    type: str
    path: list[PathItem]
    link_type: str
    origin: str
    proposed: bool
    confidence: float | None
    valid_from: str
    via: str | None = None  # the evidence ref the entity is reached through; None: direct


def _linked_entities(
    conn: Connection, found: dict[str, list[tuple[LinkOut, str, str | None]]]
) -> dict[str, list[LinkedEntity]]:
    """For each key, the entities at the other end (`other`) of its counted links, each with
    its path, leaving out those gone or archived: two statements for every key at once."""
    ids = sorted({other.removeprefix("entity/") for ends in found.values() for _, other, _ in ends})
    if not ids:
        return {key: [] for key in found}
    marks, wanted = in_list(ids)
    rows = {
        r["id"]: r
        for r in conn.execute(
            f"SELECT id, name, type, status FROM entity_current WHERE id IN ({marks})", wanted
        )
    }
    paths = paths_of(conn, ids)
    out: dict[str, list[LinkedEntity]] = {}
    for key, ends in found.items():
        out[key] = []
        for link, other, via in ends:
            entity_id = other.removeprefix("entity/")
            row = rows.get(entity_id)
            if row is None or row["status"] == "archived":
                continue
            out[key].append(
                LinkedEntity(
                    ref=other,
                    id=entity_id,
                    name=row["name"],
                    type=row["type"],
                    path=paths.get(entity_id, []),
                    link_type=link.type,
                    origin=link.origin,
                    proposed=link.origin == "proposed" and link.status != "confirmed",
                    confidence=link.confidence,
                    valid_from=link.valid_from,
                    via=via,
                )
            )
    return out


def _head_order(found: list[LinkedEntity]) -> list[LinkedEntity]:
    """Not proposed first, then confidence, then date (newest first)."""
    found.sort(key=lambda e: e.valid_from, reverse=True)
    found.sort(key=lambda e: (e.proposed, -(e.confidence if e.confidence is not None else 1.0)))
    return found


def _direct_ends(
    links: list[LinkOut], rule_ids: list[str], min_confidence: float | None, now: str
) -> dict[str, list[tuple[LinkOut, str, str | None]]]:
    """Per rule, its counted open links of a head type to an entity, and that entity's ref."""
    rules = {f"rule/{r}": r for r in rule_ids}
    out: dict[str, list[tuple[LinkOut, str, str | None]]] = {r: [] for r in rule_ids}
    for link in links:
        if link.type not in _HEAD_TYPES or not (_open(link, now) and counted(link, min_confidence)):
            continue
        for end, other in ((link.from_ref, link.to_ref), (link.to_ref, link.from_ref)):
            if end in rules and other.startswith("entity/"):
                out[rules[end]].append((link, other, None))
    return out


def entities_linked_to_rule(
    conn: Connection, rule_id: str, min_confidence: float | None, now: str
) -> list[LinkedEntity]:
    """Entities a rule concerns, belongs to or mentions, counted per G5, not archived.

    Ordered for a bundle head: not proposed first, then confidence, then date (newest first).
    """
    links = stored_links(conn, [f"rule/{rule_id}"])
    ends = _direct_ends(links, [rule_id], min_confidence, now)
    return _head_order(_linked_entities(conn, ends)[rule_id])


def _evidence_refs(conn: Connection, rule_ids: list[str]) -> dict[str, list[str]]:
    """Per rule, the refs its evidence reaches: each cited source, and each cited attachment."""
    refs: dict[str, list[str]] = {r: [] for r in rule_ids}
    marks, wanted = in_list(rule_ids)
    for row in conn.execute(
        "SELECT e.rule_id, e.source_id, e.n FROM rule_evidence e JOIN source s "
        f"ON s.id = e.source_id WHERE e.rule_id IN ({marks}) ORDER BY e.rule_id, s.day, s.seq, e.n",
        wanted,
    ):
        held = refs[row["rule_id"]]
        source = f"source/{row['source_id']}"
        if source not in held:
            held.append(source)
        if row["n"] is not None:
            held.append(f"attachment/{row['source_id']}#{row['n']}")
    return refs


def entities_of_rules(
    conn: Connection, rule_ids: list[str], min_confidence: float | None, now: str
) -> dict[str, list[LinkedEntity]]:
    """Per rule, the entities a search bundle shows for it, each once: those linked to the
    rule (as `entities_linked_to_rule`), then those a source (or attachment) of its evidence
    concerns or is filed under (DESIGN §15 P8), counted per G5, not archived, marked `via`
    the evidence ref they hang on. Four statements for any number of rules."""
    if not rule_ids:
        return {}
    evidence = _evidence_refs(conn, rule_ids)
    cited: dict[str, list[str]] = {}  # evidence ref → the rules citing it
    for rule_id, refs in evidence.items():
        for ref in refs:
            cited.setdefault(ref, []).append(rule_id)
    links = stored_links(conn, [f"rule/{r}" for r in rule_ids] + list(cited))
    found = {
        f"direct:{r}": ends
        for r, ends in _direct_ends(links, rule_ids, min_confidence, now).items()
    }
    for rule_id in rule_ids:
        found[f"via:{rule_id}"] = []
    for link in links:
        if (
            link.type not in VIA_SOURCE_TYPES
            or not link.to_ref.startswith("entity/")
            or not (_open(link, now) and counted(link, min_confidence))
        ):
            continue
        for rule_id in cited.get(link.from_ref, []):
            found[f"via:{rule_id}"].append((link, link.to_ref, link.from_ref))
    linked = _linked_entities(conn, found)
    out: dict[str, list[LinkedEntity]] = {}
    for rule_id in rule_ids:
        seen: set[str] = set()
        out[rule_id] = []
        for entity in [
            *_head_order(linked[f"direct:{rule_id}"]),
            *_head_order(linked[f"via:{rule_id}"]),
        ]:
            if entity.ref not in seen:  # two links to one entity: the best one shows
                seen.add(entity.ref)
                out[rule_id].append(entity)
    return out
