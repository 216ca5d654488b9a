"""Links (seed 000 §3.3, §4 "Link", §6; DESIGN §8.1–8.2): proposals, stored and computed.

The only module that inserts into `link`. Computed links (replies_to, attachment_of,
sourced_from, supersedes) are never stored: they are derived from the core tables.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from groundnote.domain.errors import NotFound, ReferenceUnknown, ScopeMismatch, ValidationFailed
from groundnote.domain.ids import SOURCE_ID_RE, format_seq_id
from groundnote.graph.entities import Author
from groundnote.graph.models import LinkOut
from groundnote.store.sql import Connection, Row, in_list

__all__ = [
    "VOCABULARY",
    "check_endpoint",
    "computed_links",
    "counted",
    "kind_of",
    "link_status",
    "propose_link",
    "read_link",
    "reply_links",
    "stored_links",
    "subtree_links",
]

# type → (kinds allowed at from, kinds allowed at to), DESIGN §8.1
VOCABULARY: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "concerns": (frozenset({"source", "attachment", "rule"}), frozenset({"entity"})),
    "belongs_to": (frozenset({"source", "attachment", "entity"}), frozenset({"entity"})),
    "mentions": (frozenset({"source", "attachment", "rule"}), frozenset({"entity", "rule"})),
    "contradicts": (frozenset({"rule"}), frozenset({"rule"})),
    "same_as": (frozenset({"entity"}), frozenset({"entity"})),
}
_SOURCE = re.compile(SOURCE_ID_RE)


def kind_of(ref: str) -> str:
    return ref.split("/", 1)[0]


def _value(ref: str) -> str:
    return ref.split("/", 1)[1]


def check_endpoint(conn: Connection, scope: str, ref: str) -> None:
    """The endpoint exists in this scope's file, is no rejected rule and no archived entity."""
    kind, value = kind_of(ref), _value(ref)
    if kind in ("rule", "entity"):
        owner = re.sub(r"-e?\d+$", "", value)
        if owner != scope:
            raise ScopeMismatch(f"{ref} belongs to another scope than {scope}.")
    if kind == "rule":
        row = conn.execute("SELECT status FROM rule_state WHERE id = ?", (value,)).fetchone()
        if row is None or row["status"] == "rejected":
            raise NotFound(
                f"There is no rule {value} to link in scope {scope}"
                + (" (it was rejected)." if row is not None else "."),
                remedy="Link only rules that exist and are not rejected; search finds them.",
                next=[{"tool": "search", "why": "find the rule"}],
            )
        return
    if kind == "entity":
        found = conn.execute(
            "SELECT status, name FROM entity_current WHERE id = ?", (value,)
        ).fetchone()
        if found is None or found["status"] == "archived":
            raise ReferenceUnknown(
                f"{ref} is unknown in scope {scope}" + (" (archived)." if found else "."),
                remedy=(
                    f"{found['name']} is archived; link an active entity instead."
                    if found
                    else "Find the entity with entity_resolve and use its id."
                ),
                next=[{"tool": "entity_resolve", "why": "find the entity"}],
            )
        return
    if kind == "source":
        hit = conn.execute("SELECT 1 FROM source WHERE id = ?", (value,)).fetchone()
    else:
        source_id, n = value.rsplit("#", 1)
        hit = conn.execute(
            "SELECT 1 FROM source_attachment WHERE source_id = ? AND n = ?", (source_id, int(n))
        ).fetchone()
    if hit is None:
        raise ReferenceUnknown(
            f"{ref} is not stored in scope {scope}.",
            remedy="Store the source first with store_source, then link it.",
            next=[{"tool": "store_source", "why": "store the mail or meeting first"}],
        )


@dataclass
class Proposed:
    link: LinkOut
    created: bool


def propose_link(
    conn: Connection,
    scope: str,
    author: Author,
    *,
    from_ref: str,
    to_ref: str,
    type: str,
    confidence: float,
    reason: str,
    evidence: str | None,
) -> Proposed:
    if from_ref == to_ref:
        raise ValidationFailed("A link needs two different ends.", remedy="Name two items.")
    for ref in (from_ref, to_ref):
        check_endpoint(conn, scope, ref)
    allowed_from, allowed_to = VOCABULARY[type]
    if kind_of(from_ref) not in allowed_from or kind_of(to_ref) not in allowed_to:
        raise ValidationFailed(
            f"A {type} link goes from {' or '.join(sorted(allowed_from))} "
            f"to {' or '.join(sorted(allowed_to))}.",
            remedy=f"Swap the ends or choose another type; {_vocabulary_text()}",
            problems=[{"key": "type", "problem": "does not fit the kinds of the two ends"}],
        )
    open_row = conn.execute(
        f"SELECT {_LINK_COLUMNS} FROM link l WHERE from_ref = ? AND type = ? AND to_ref = ? "
        "AND valid_to IS NULL",
        (from_ref, type, to_ref),
    ).fetchone()
    if open_row is not None:
        return Proposed(_link_out(open_row), created=False)
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM link").fetchone()[0]
    conn.execute(
        "INSERT INTO link (seq, id, from_ref, to_ref, type, origin, confidence, reason, evidence, "
        "valid_from, valid_to, created_at, created_by) "
        "VALUES (?, ?, ?, ?, ?, 'proposed', ?, ?, ?, ?, NULL, ?, ?)",
        (
            seq,
            format_seq_id(scope, "l", seq),
            from_ref,
            to_ref,
            type,
            confidence,
            reason.strip(),
            evidence,
            author.at,
            author.at,
            author.changed_by,
        ),
    )
    row = conn.execute(f"SELECT {_LINK_COLUMNS} FROM link l WHERE seq = ?", (seq,)).fetchone()
    return Proposed(_link_out(row), created=True)


def _vocabulary_text() -> str:
    return "; ".join(
        f"{t}: {'/'.join(sorted(f))} → {'/'.join(sorted(to))}" for t, (f, to) in VOCABULARY.items()
    )


_LINK_COLUMNS = """l.id, l.from_ref, l.to_ref, l.type, l.origin, l.confidence, l.reason, l.evidence,
  l.valid_from, l.valid_to, l.created_at,
  (SELECT r.verdict FROM review r WHERE r.target = 'link/' || l.id) AS verdict"""


def link_status(origin: str, verdict: str | None) -> Literal["confirmed", "proposed", "rejected"]:
    """A link's status from its origin and a person's review of it (seed 000 §3.3): only a
    proposed link waits; a review confirms or rejects it."""
    if origin != "proposed" or verdict == "confirm":
        return "confirmed"
    return "rejected" if verdict == "reject" else "proposed"


def _link_out(row: Row) -> LinkOut:
    return LinkOut(
        id=row["id"],
        from_ref=row["from_ref"],
        to_ref=row["to_ref"],
        type=row["type"],
        origin=row["origin"],
        confidence=row["confidence"],
        status=link_status(row["origin"], row["verdict"]),
        reason=row["reason"],
        evidence=row["evidence"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        created_at=row["created_at"],
    )


def read_link(conn: Connection, link_id: str) -> LinkOut | None:
    """One stored link by id, with its status as of the reviews so far."""
    row = conn.execute(f"SELECT {_LINK_COLUMNS} FROM link l WHERE l.id = ?", (link_id,)).fetchone()
    return _link_out(row) if row is not None else None


def stored_links(conn: Connection, refs: list[str]) -> list[LinkOut]:
    """Stored links with either end among refs, newest first."""
    if not refs:
        return []
    marks, padded = in_list(refs)
    rows = conn.execute(
        f"SELECT {_LINK_COLUMNS} FROM link l WHERE l.from_ref IN ({marks}) "
        f"OR l.to_ref IN ({marks}) ORDER BY l.seq DESC",
        (*padded, *padded),
    ).fetchall()
    return [_link_out(r) for r in rows]


@dataclass(frozen=True)
class SubtreeLink:
    link: LinkOut
    from_inside: bool  # the from end is the entity or one below it
    to_inside: bool


def subtree_links(
    conn: Connection, entity_id: str, min_confidence: float | None, now: str
) -> list[SubtreeLink]:
    """The open links that `counted` counts with an end on the entity or below it, newest
    first, found through the closure: the database drops the others, so a subtree of 10,000
    entities costs its links, not a row for every link of every entity in it."""
    inside = (
        "EXISTS (SELECT 1 FROM entity_closure c WHERE c.ancestor_id = ? "
        "AND substr(l.{end}, 1, 7) = 'entity/' AND c.descendant_id = substr(l.{end}, 8))"
    )
    confident = (
        ""
        if min_confidence is None
        else " OR (NOT EXISTS (SELECT 1 FROM review r WHERE r.target = 'link/' || l.id) "
        "AND coalesce(l.confidence, 0) >= ?)"
    )
    rows = conn.execute(
        f"SELECT {_LINK_COLUMNS}, {inside.format(end='from_ref')} AS from_inside, "
        f"{inside.format(end='to_ref')} AS to_inside FROM link l WHERE l.seq IN ("
        "SELECT k.seq FROM entity_closure c JOIN link k ON k.to_ref = 'entity/' || c.descendant_id "
        "WHERE c.ancestor_id = ? UNION SELECT k.seq FROM entity_closure c "
        "JOIN link k ON k.from_ref = 'entity/' || c.descendant_id WHERE c.ancestor_id = ?) "
        "AND l.valid_from <= ? AND (l.valid_to IS NULL OR l.valid_to > ?) "
        "AND (l.origin <> 'proposed' OR EXISTS (SELECT 1 FROM review r "
        f"WHERE r.target = 'link/' || l.id AND r.verdict = 'confirm'){confident}) "
        "ORDER BY l.seq DESC",
        (
            entity_id,
            entity_id,
            entity_id,
            entity_id,
            now,
            now,
            *(() if min_confidence is None else (min_confidence,)),
        ),
    ).fetchall()
    return [
        SubtreeLink(
            link=_link_out(r), from_inside=bool(r["from_inside"]), to_inside=bool(r["to_inside"])
        )
        for r in rows
    ]


def _instant(day_or_instant: str) -> str:
    return day_or_instant if "T" in day_or_instant else day_or_instant + "T00:00:00.000Z"


def _computed(from_ref: str, to_ref: str, type: str, at: str) -> LinkOut:
    return LinkOut(
        id=None,
        from_ref=from_ref,
        to_ref=to_ref,
        type=type,
        origin="deterministic",
        confidence=None,
        status="confirmed",
        reason=None,
        evidence=None,
        valid_from=_instant(at),
        valid_to=None,
        created_at=None,
    )


def _source_ref(raw: Any) -> str | None:
    """A rule's evidence ref as the source it names: source/…, attachment/… or a bare id."""
    if not isinstance(raw, str):
        return None
    text = raw.split("/", 1)[1] if raw.startswith(("source/", "attachment/")) else raw
    text = text.split("#", 1)[0]
    return "source/" + text if _SOURCE.fullmatch(text) else None


def reply_links(conn: Connection, ref: str, row: Row | None = None) -> list[LinkOut]:
    """The computed replies_to links of a source: to the mail it answers, from its replies.
    Both lookups use an index; the grouped listing needs only these of a source's links."""
    value = _value(ref)
    if row is None:
        row = conn.execute(
            "SELECT id, day, sent_at, in_reply_to FROM source WHERE id = ?", (value,)
        ).fetchone()
        if row is None:
            return []
    out: list[LinkOut] = []
    if row["in_reply_to"]:
        parent = conn.execute(
            "SELECT id FROM source WHERE id IN (?, 'mail:' || ?)",
            (row["in_reply_to"], row["in_reply_to"]),
        ).fetchone()
        if parent is not None:
            out.append(
                _computed(ref, "source/" + parent["id"], "replies_to", row["sent_at"] or row["day"])
            )
    for reply in conn.execute(
        "SELECT id, day, sent_at FROM source WHERE in_reply_to IN (?, ?) ORDER BY seq",
        (value, value.removeprefix("mail:")),
    ):
        out.append(
            _computed("source/" + reply["id"], ref, "replies_to", reply["sent_at"] or reply["day"])
        )
    return out


def computed_links(conn: Connection, ref: str) -> list[LinkOut]:
    """The links derived from core tables that touch ref (DESIGN §8.2)."""
    kind, value = kind_of(ref), _value(ref)
    out: list[LinkOut] = []
    if kind == "source":
        row = conn.execute(
            "SELECT id, day, sent_at, in_reply_to FROM source WHERE id = ?", (value,)
        ).fetchone()
        if row is None:
            return out
        out.extend(reply_links(conn, ref, row))
        for att in conn.execute(
            "SELECT n FROM source_attachment WHERE source_id = ? ORDER BY n", (value,)
        ):
            out.append(
                _computed(
                    f"attachment/{value}#{att['n']}",
                    ref,
                    "attachment_of",
                    row["sent_at"] or row["day"],
                )
            )
        for rule in conn.execute(
            "SELECT r.id, r.valid_from, r.evidence_refs FROM rule r WHERE r.id IN "
            "(SELECT e.rule_id FROM rule_evidence e WHERE e.source_id = ?) ORDER BY r.id",
            (value,),
        ):
            refs = {_source_ref(x) for x in json.loads(rule["evidence_refs"])}
            if ref in refs:
                out.append(_computed("rule/" + rule["id"], ref, "sourced_from", rule["valid_from"]))
    elif kind == "attachment":
        source_id = value.rsplit("#", 1)[0]
        row = conn.execute("SELECT day, sent_at FROM source WHERE id = ?", (source_id,)).fetchone()
        if row is not None:
            out.append(
                _computed(ref, "source/" + source_id, "attachment_of", row["sent_at"] or row["day"])
            )
    elif kind == "rule":
        row = conn.execute(
            "SELECT valid_from, evidence_refs, supersedes FROM rule WHERE id = ?", (value,)
        ).fetchone()
        if row is None:
            return out
        seen: set[str] = set()
        for raw in json.loads(row["evidence_refs"]):
            target = _source_ref(raw)
            if target and target not in seen:
                seen.add(target)
                out.append(_computed(ref, target, "sourced_from", row["valid_from"]))
        if row["supersedes"]:
            out.append(_computed(ref, "rule/" + row["supersedes"], "supersedes", row["valid_from"]))
        for newer in conn.execute("SELECT id, valid_from FROM rule WHERE supersedes = ?", (value,)):
            out.append(_computed("rule/" + newer["id"], ref, "supersedes", newer["valid_from"]))
    return out


def counted(link: LinkOut, min_confidence: float | None) -> bool:
    """G5: computed, deterministic and human links always; a proposed one only if a person
    confirmed it, or its confidence reaches the configured minimum and nobody rejected it."""
    if link.status == "rejected":
        return False
    if link.origin != "proposed" or link.status == "confirmed":
        return True
    return min_confidence is not None and (link.confidence or 0) >= min_confidence
