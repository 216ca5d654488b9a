"""Everything about an entity (seed 000 §6 "Everything about X", §11 G5): the counted links of
the entity and its descendants, the other ends resolved to entries and grouped like a bundle.
Also the entities linked to a rule, which the search bundles (core) show in their head.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from groundnote.domain.guidance import PathItem
from groundnote.graph.links import computed_links, counted, kind_of, stored_links
from groundnote.graph.models import Entry, Group, LinkOut
from groundnote.graph.queries import PAGE_SIZE, descendant_ids, path_items

__all__ = ["GROUP_ORDER", "LinkedEntity", "entities_linked_to_rule", "entity_groups"]

GROUP_ORDER = ("rule", "source", "thread", "attachment", "entity")
_HEAD_TYPES = ("concerns", "belongs_to", "mentions")


def _open(link: LinkOut, now: str) -> bool:
    return link.valid_from <= now and (link.valid_to is None or link.valid_to > now)


def _entry(conn: sqlite3.Connection, ref: str, link: LinkOut, via: list[str]) -> Entry | None:
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
    conn: sqlite3.Connection,
    entity_id: str,
    min_confidence: float | None,
    now: str,
    page: int,
) -> tuple[list[Group], int]:
    """One page of the grouped entries about entity_id and its subtree, and the total."""
    subtree = descendant_ids(conn, entity_id)
    inside = {f"entity/{d}" for d in subtree}
    paths: dict[str, list[str]] = {}
    found: dict[str, list[Entry]] = {kind: [] for kind in GROUP_ORDER}
    seen: set[tuple[str, str]] = set()
    for link in stored_links(conn, sorted(inside)):
        if not (_open(link, now) and counted(link, min_confidence)):
            continue
        here, other = (
            (link.to_ref, link.from_ref) if link.to_ref in inside else (link.from_ref, link.to_ref)
        )
        if other in inside and here == link.from_ref:
            here, other = other, here  # both ends inside: list it once, under the target
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
            for thread in computed_links(conn, other):
                if thread.type != "replies_to":
                    continue
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


def entities_linked_to_rule(
    conn: sqlite3.Connection, rule_id: str, min_confidence: float | None, now: str
) -> list[LinkedEntity]:
    """Entities a rule concerns, belongs to or mentions, counted per G5, not archived.

    Ordered for a bundle head: not proposed first, then confidence, then date (newest first).
    """
    out: list[LinkedEntity] = []
    ref = f"rule/{rule_id}"
    for link in stored_links(conn, [ref]):
        other = link.to_ref if link.from_ref == ref else link.from_ref
        if (
            link.type not in _HEAD_TYPES
            or not other.startswith("entity/")
            or not (_open(link, now) and counted(link, min_confidence))
        ):
            continue
        entity_id = other.removeprefix("entity/")
        row = conn.execute(
            "SELECT name, type, status FROM entity_current WHERE id = ?", (entity_id,)
        ).fetchone()
        if row is None or row["status"] == "archived":
            continue
        out.append(
            LinkedEntity(
                ref=other,
                id=entity_id,
                name=row["name"],
                type=row["type"],
                path=path_items(conn, entity_id),
                link_type=link.type,
                origin=link.origin,
                proposed=link.origin == "proposed" and link.status != "confirmed",
                confidence=link.confidence,
                valid_from=link.valid_from,
            )
        )
    out.sort(key=lambda e: e.valid_from, reverse=True)
    out.sort(key=lambda e: (e.proposed, -(e.confidence if e.confidence is not None else 1.0)))
    return out
