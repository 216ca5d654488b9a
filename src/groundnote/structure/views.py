"""What the approval pages show: pending items with their paths resolved, rules with their
evidence (seed 000 §12). Reads only; SQL joins across core's and graph's tables.
"""

from __future__ import annotations

import json
from typing import Any

from groundnote.core.sources import attachment_ref, attachments_of, replied_to, source_ref
from groundnote.domain.guidance import PathItem
from groundnote.domain.ids import scope_of
from groundnote.graph.counters import pending_page, tallies
from groundnote.store.dialect import dialect_of
from groundnote.store.sql import Connection, Row
from groundnote.structure.models import (
    AttachmentView,
    ChangeView,
    Counts,
    EndView,
    EntityItem,
    LinkedView,
    LinkItem,
    RuleView,
    SourceView,
    ThreadItem,
    VersionRow,
)
from groundnote.structure.state import PENDING_LINKS_SQL, PENDING_VERSIONS_SQL
from groundnote.structure.versions import current_version, entity_path, version_row

__all__ = [
    "counts",
    "pending_items",
    "proposed_rules",
    "rule_view",
    "source_view",
]


def counts(conn: Connection) -> Counts:
    """What waits in a scope, from the counters kept with every write (graph/counters.py)."""
    kept = tallies(conn)
    return Counts(
        entities=kept.get("pending:entity", 0),
        links=kept.get("pending:link", 0),
        rules=kept.get("rules:proposed", 0),
    )


def _node(row: VersionRow) -> PathItem:
    return PathItem(id=row.id, name=row.name, type=row.type)


def _parent_path(conn: Connection, parent_id: str | None) -> list[PathItem]:
    return entity_path(conn, parent_id) if parent_id else []


def _change(conn: Connection, row: VersionRow) -> ChangeView:
    after = [*_parent_path(conn, row.parent_id), _node(row)]
    if row.change == "create":
        return ChangeView(row=row, before=None, after=after)
    previous = version_row(conn, row.id, row.version - 1)
    assert previous is not None  # version gaps are refused by the table
    before = [*_parent_path(conn, previous.parent_id), _node(previous)]
    return ChangeView(
        row=row,
        before=before,
        after=after,
        aliases_added=[a for a in row.aliases if a not in previous.aliases],
        aliases_removed=[a for a in previous.aliases if a not in row.aliases],
    )


def _overridden(conn: Connection, entity_id: str) -> list[dict[str, Any]]:
    """The duplicate candidates a forced create passed, as graph logged them with the create."""
    refs = dialect_of(conn).json_values("search_log.refs")
    row = conn.execute(
        "SELECT stages FROM search_log WHERE operation = 'create_entity' AND outcome = 'ok' "
        f"AND EXISTS (SELECT 1 FROM ({refs}) AS r WHERE r.value = ?) LIMIT 1",
        (f"entity/{entity_id}",),
    ).fetchone()
    stages = json.loads(row[0]) if row is not None else {}
    found = stages.get("overridden") or [] if isinstance(stages, dict) else []
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def _entity_item(conn: Connection, entity_id: str, at: str) -> EntityItem:
    rows = conn.execute(
        f"{PENDING_VERSIONS_SQL} AND v.id = ? ORDER BY v.version", (entity_id,)
    ).fetchall()
    changes = [
        _change(conn, r) for r in (version_row(conn, entity_id, x["version"]) for x in rows) if r
    ]
    size = conn.execute(
        "SELECT count(*) FROM entity_closure c JOIN entity_current k ON k.id = c.descendant_id "
        "WHERE c.ancestor_id = ? AND c.depth >= 1 AND k.status <> 'archived'",
        (entity_id,),
    ).fetchone()[0]
    created = any(c.row.change == "create" for c in changes)
    return EntityItem(
        id=entity_id,
        at=at,
        current=current_version(conn, entity_id),
        path=entity_path(conn, entity_id),
        changes=changes,
        subtree_size=int(size),
        overridden=_overridden(conn, entity_id) if created else [],
    )


def end_view(conn: Connection, ref: str) -> EndView:
    """One end of a link, resolved to what a person recognises."""
    kind, _, rest = ref.partition("/")
    if kind == "entity":
        path = entity_path(conn, rest)
        row = conn.execute(
            "SELECT name, status FROM entity_current WHERE id = ?", (rest,)
        ).fetchone()
        label = row["name"] if row else rest
        return EndView(
            ref=ref, kind=kind, label=label, path=path, status=row["status"] if row else None
        )
    if kind == "rule":
        row = conn.execute(
            "SELECT r.statement, st.status FROM rule r JOIN rule_state st ON st.id = r.id "
            "WHERE r.id = ?",
            (rest,),
        ).fetchone()
        return EndView(
            ref=ref,
            kind=kind,
            label=row["statement"] if row else rest,
            status=row["status"] if row else None,
        )
    if kind == "source":
        row = conn.execute("SELECT title, day FROM source WHERE id = ?", (rest,)).fetchone()
        return EndView(ref=ref, kind=kind, label=f"{row['title']} ({row['day']})" if row else rest)
    source_id, _, n = rest.rpartition("#")
    row = conn.execute(
        "SELECT a.filename, s.title FROM source_attachment a JOIN source s ON s.id = a.source_id "
        "WHERE a.source_id = ? AND a.n = ?",
        (source_id, int(n) if n.isdigit() else 0),
    ).fetchone()
    label = f"{row['filename']} (attached to {row['title']})" if row else rest
    return EndView(ref=ref, kind="attachment", label=label)


def _link_item(conn: Connection, row: Row) -> LinkItem:
    return LinkItem(
        id=row["id"],
        at=row["created_at"],
        type=row["type"],
        confidence=row["confidence"],
        reason=row["reason"],
        evidence=row["evidence"],
        by=row["created_by"],
        source=end_view(conn, row["from_ref"]),
        target=end_view(conn, row["to_ref"]),
    )


def pending_items(
    conn: Connection, *, limit: int, offset: int = 0
) -> tuple[int, list[EntityItem | LinkItem]]:
    """Every pending entity and link, newest first: (how many in all, the page asked for)."""
    page: list[EntityItem | LinkItem] = []
    for key in pending_page(conn, limit=limit, offset=offset):
        if key.kind == "entity":
            page.append(_entity_item(conn, key.id, key.at))
        else:
            row = conn.execute("SELECT * FROM link WHERE id = ?", (key.id,)).fetchone()
            page.append(_link_item(conn, row))
    waiting = counts(conn)
    return waiting.entities + waiting.links, page


def _rule(conn: Connection, row: Row, with_links: bool) -> RuleView:
    refs = [str(r) for r in json.loads(row["evidence_refs"])]
    evidence = [
        end_view(conn, r if "/" in r else ("attachment/" if "#" in r else "source/") + r)
        for r in refs
    ]
    decisions = [
        {k: d[k] for k in ("verdict", "reason", "decided_by", "decided_at", "channel")}
        for d in conn.execute(
            "SELECT * FROM rule_decision WHERE rule_id = ? ORDER BY seq", (row["id"],)
        )
    ]
    concerns = (
        [
            _link_item(conn, link)
            for link in conn.execute(
                f"SELECT p.* FROM ({PENDING_LINKS_SQL}) p WHERE p.from_ref = ? "
                "AND p.type = 'concerns' ORDER BY p.created_at DESC, p.id DESC",
                (f"rule/{row['id']}",),
            )
        ]
        if with_links
        else []
    )
    ref = f"rule/{row['id']}"
    concerned = _linked(conn, [ref], types=("concerns",)) if with_links else []
    return RuleView(
        id=row["id"],
        scope=scope_of(row["id"]),
        statement=row["statement"],
        status=row["status"],
        auto_adopted=bool(row["auto_adopted"]),
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        supersedes=row["supersedes"],
        proposed_at=row["proposed_at"],
        proposed_by=row["proposed_by"],
        quote=row["evidence_quote"],
        evidence=evidence,
        decisions=decisions,
        concerns=concerns,
        concerned=concerned,
        predecessors=_predecessors(conn, row["supersedes"]) if with_links else [],
        successors=_successors(conn, row["id"]) if with_links else [],
        contradicting=_linked(conn, [ref], types=("contradicts",)) if with_links else [],
    )


# How far the replacement chains are followed; a longer one ends with its last rule shown.
_CHAIN = 20


def _predecessors(conn: Connection, first: str | None) -> list[EndView]:
    """The rule it supersedes, the one that one supersedes, and so on back."""
    found: list[EndView] = []
    seen: set[str] = set()
    current = first
    while current and current not in seen and len(found) < _CHAIN:
        seen.add(current)
        found.append(end_view(conn, f"rule/{current}"))
        row = conn.execute("SELECT supersedes FROM rule WHERE id = ?", (current,)).fetchone()
        current = row["supersedes"] if row else None
    return found


def _successors(conn: Connection, rule_id: str) -> list[EndView]:
    """The rules that supersede it, and theirs, nearest first."""
    found: list[EndView] = []
    seen = {rule_id}
    frontier = [rule_id]
    while frontier and len(found) < _CHAIN:
        marks = ",".join("?" * len(frontier))
        rows = conn.execute(
            f"SELECT id FROM rule WHERE supersedes IN ({marks}) ORDER BY seq", frontier
        ).fetchall()
        frontier = [r["id"] for r in rows if r["id"] not in seen]
        seen.update(frontier)
        found.extend(end_view(conn, f"rule/{r}") for r in frontier)
    return found[:_CHAIN]


_RULES = "SELECT r.*, st.status, st.auto_adopted FROM rule r JOIN rule_state st ON st.id = r.id"


def rule_view(conn: Connection, rule_id: str) -> RuleView | None:
    row = conn.execute(f"{_RULES} WHERE r.id = ?", (rule_id,)).fetchone()
    return _rule(conn, row, with_links=True) if row is not None else None


def proposed_rules(conn: Connection, *, limit: int, offset: int = 0) -> tuple[int, list[RuleView]]:
    total = tallies(conn).get("rules:proposed", 0)
    rows = conn.execute(
        f"{_RULES} WHERE st.status = 'proposed' ORDER BY r.seq DESC LIMIT ? OFFSET ?",
        (limit, offset),
    ).fetchall()
    return int(total), [_rule(conn, r, with_links=True) for r in rows]


def _linked(conn: Connection, refs: list[str], types: tuple[str, ...] = ()) -> list[LinkedView]:
    """The open links from or to any of `refs`, oldest first, each with its other end."""
    marks = ",".join("?" * len(refs))
    typed = f" AND l.type IN ({','.join('?' * len(types))})" if types else ""
    rows = conn.execute(
        f"SELECT l.*, (p.id IS NOT NULL) AS waiting FROM link l "
        f"LEFT JOIN ({PENDING_LINKS_SQL}) p ON p.id = l.id "
        f"WHERE l.valid_to IS NULL AND (l.from_ref IN ({marks}) OR l.to_ref IN ({marks})){typed} "
        "ORDER BY l.seq",
        (*refs, *refs, *types),
    ).fetchall()
    found = []
    for r in rows:
        out = r["from_ref"] in refs
        found.append(
            LinkedView(
                id=r["id"],
                type=r["type"],
                direction="out" if out else "in",
                status="proposed" if r["waiting"] else "confirmed",
                other=end_view(conn, r["to_ref"] if out else r["from_ref"]),
            )
        )
    return found


def _strings(raw: str) -> list[str]:
    found = json.loads(raw)
    return [str(x) for x in found] if isinstance(found, list) else []


# A thread longer than this shows its first mails only; mail loops must not stall the page.
_THREAD = 100


def _thread(conn: Connection, row: Row) -> list[ThreadItem]:
    """The stored mails of the source's thread, from the first one down, replies under the mail
    they answer, each with how deep it sits."""
    root, seen = row, {row["id"]}
    while (parent := replied_to(conn, root)) is not None and parent not in seen:
        seen.add(parent)
        root = conn.execute("SELECT * FROM source WHERE id = ?", (parent,)).fetchone()
    found: list[ThreadItem] = []
    visited: set[str] = set()

    def walk(node: Row, depth: int) -> None:
        if node["id"] in visited or len(found) >= _THREAD:
            return
        visited.add(node["id"])
        found.append(
            ThreadItem(
                id=node["id"],
                title=node["title"],
                sender=node["sender"],
                day=node["day"],
                sent_at=node["sent_at"],
                depth=depth,
                here=node["id"] == row["id"],
            )
        )
        for reply in conn.execute(
            "SELECT * FROM source WHERE in_reply_to IN (?, ?) ORDER BY day, seq",
            (node["id"], node["id"].removeprefix("mail:")),
        ).fetchall():
            walk(reply, depth + 1)

    walk(root, 0)
    return found


def source_view(conn: Connection, scope: str, source_id: str) -> SourceView | None:
    row = conn.execute("SELECT * FROM source WHERE id = ?", (source_id,)).fetchone()
    if row is None:
        return None
    attachments = [
        AttachmentView(
            n=a["n"],
            ref=attachment_ref(source_id, a["n"]),
            filename=a["filename"],
            media_type=a["media_type"],
            size=a["size"],
            text=a["text"],
        )
        for a in attachments_of(conn, source_id)
    ]
    parent = replied_to(conn, row)
    rules = [
        end_view(conn, f"rule/{r['rule_id']}")
        for r in conn.execute(
            # not DISTINCT … ORDER BY r.seq: PostgreSQL orders a DISTINCT only by what it selects
            "SELECT r.id AS rule_id FROM rule r WHERE r.id IN "
            "(SELECT e.rule_id FROM rule_evidence e WHERE e.source_id = ?) ORDER BY r.seq",
            (source_id,),
        )
    ]
    refs = [source_ref(source_id), *(a.ref for a in attachments)]
    thread = _thread(conn, row)
    return SourceView(
        scope=scope,
        id=source_id,
        ref=source_ref(source_id),
        kind=row["kind"],
        title=row["title"],
        day=row["day"],
        sent_at=row["sent_at"],
        sender=row["sender"],
        recipients=_strings(row["recipients"]),
        cc=_strings(row["cc"]),
        participants=_strings(row["participants"]),
        body=row["body"],
        in_reply_to=parent,
        attachments=attachments,
        thread=thread if len(thread) > 1 else [],
        rules=rules,
        links=_linked(conn, refs),
    )
