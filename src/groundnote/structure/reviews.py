"""Reviews: a person confirms or reverts an agent's entity version, confirms or rejects a
proposed link (seed 000 §3.3, §10, §12; G7). `INSERT INTO review` lives only here (AT3); the
handler (`handlers.review`) opens the transaction and calls one of the two writers here.

Checked in code, in this order, so that the answer carries a remedy: the target exists; no
review of it exists (already-decided); an entity target is the current version
(version-outdated, naming the current one) and an agent's; reject only for links, revert only
for entities, both with a reason (reason-missing).
"""

from __future__ import annotations

from typing import Literal

from groundnote.capabilities import Context
from groundnote.domain.errors import (
    AlreadyDecided,
    Cycle,
    HasChildren,
    NotFound,
    ParentArchived,
    StateChanged,
    ValidationFailed,
    VersionOutdated,
)
from groundnote.domain.guidance import Next
from groundnote.graph import read_link
from groundnote.graph.closure import on_move
from groundnote.graph.fts import put_text
from groundnote.store.sql import Connection
from groundnote.structure.models import ReviewAnswer, ReviewOut, ReviewRequest
from groundnote.structure.state import entity_state
from groundnote.structure.versions import (
    AGENT_CHANNELS,
    VersionRow,
    current_version,
    entity_path,
    version_row,
    write_version,
)

__all__ = ["review_entity", "review_link"]


def _insert_review(
    ctx: Context,
    conn: Connection,
    scope: str,
    target: str,
    verdict: Literal["confirm", "reject", "revert"],
    reason: str | None,
    new_version: int | None,
) -> ReviewOut:
    seq = int(conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM review").fetchone()[0])
    review_id = f"{scope}-r{seq:04d}"
    at = ctx.clock.instant()
    assert ctx.principal is not None
    conn.execute(
        "INSERT INTO review (seq, id, target, verdict, decided_by, decided_by_identity, "
        "decided_at, reason, new_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            seq,
            review_id,
            target,
            verdict,
            ctx.actor,
            ctx.principal.identity or ctx.actor,
            at,
            reason,
            new_version,
        ),
    )
    ctx.log.refs = [target, f"review/{review_id}"]
    return ReviewOut(
        id=review_id,
        target=target,
        verdict=verdict,
        by=ctx.actor,
        at=at,
        reason=reason,
        new_version=new_version,
    )


def _decided(conn: Connection, target: str) -> None:
    row = conn.execute(
        "SELECT id, verdict, decided_by, decided_at FROM review WHERE target = ?", (target,)
    ).fetchone()
    if row is not None:
        raise AlreadyDecided(
            f"{target} was decided already: {row['verdict']} by {row['decided_by']} "
            f"at {row['decided_at']} ({row['id']}).",
            current=row["verdict"],
        )


def _last_confirmed(conn: Connection, entity_id: str, before: int) -> VersionRow | None:
    """The latest state a person settled: a version they wrote, or one they confirmed."""
    row = conn.execute(
        "SELECT max(v.version) FROM entity_version v WHERE v.id = :id AND v.version < :before "
        "AND v.status = 'active' AND (v.channel = 'approval' OR EXISTS (SELECT 1 FROM review r "
        "WHERE r.target = 'entity/' || v.id || '@' || v.version AND r.verdict = 'confirm'))",
        {"id": entity_id, "before": before},
    ).fetchone()
    return version_row(conn, entity_id, row[0]) if row[0] is not None else None


def _active_children(conn: Connection, entity_id: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT c.descendant_id FROM entity_closure c "
            "JOIN entity_current k ON k.id = c.descendant_id "
            "WHERE c.ancestor_id = ? AND c.depth = 1 AND k.status <> 'archived' ORDER BY k.id",
            (entity_id,),
        )
    ]


def _check_restore(conn: Connection, current: VersionRow, restore: VersionRow) -> None:
    parent = restore.parent_id
    if parent is None or parent == current.parent_id:
        return
    if current_version(conn, parent).status == "archived":
        raise ParentArchived(
            f"The revert would put {current.id} back under {parent}, which is archived now.",
            remedy="Archive the entity instead, or confirm the change.",
        )
    inside = conn.execute(
        "SELECT 1 FROM entity_closure WHERE ancestor_id = ? AND descendant_id = ?",
        (current.id, parent),
    ).fetchone()
    if inside is not None:
        raise Cycle(
            f"The former parent {parent} lies inside the subtree of {current.id} now.",
            remedy="Confirm the change, or move the former parent out first.",
            paths={"entity": entity_path(conn, current.id), "target": entity_path(conn, parent)},
        )


def review_entity(ctx: Context, conn: Connection, scope: str, value: ReviewRequest) -> ReviewAnswer:
    ref, _, number = value.target.partition("@")
    entity_id = ref.removeprefix("entity/")
    version = int(number)
    current = current_version(conn, entity_id)
    if version > current.version:
        raise NotFound(
            f"{entity_id} has no version {version}; its current one is {current.ref}.",
            current=current.ref,
        )
    _decided(conn, value.target)
    if version != current.version:
        raise VersionOutdated(
            f"{value.target} is not the current version; the current one is {current.ref}.",
            remedy=f"Reload the page and review {current.ref}.",
            current=current.ref,
        )
    if current.channel not in AGENT_CHANNELS:
        raise AlreadyDecided(
            f"{current.ref} is a person's own decision ({current.change}); nothing waits here.",
            current=current.ref,
        )
    if value.verdict == "reject":
        raise ValidationFailed(
            "reject is for proposed links; an entity change is reverted.",
            remedy="Use verdict revert with a reason to undo the change.",
        )
    at = ctx.clock.instant()
    reason = (value.reason or "").strip()
    new_version: int | None = None
    if value.verdict == "confirm":
        if current.status == "unconfirmed":
            new_version = write_version(
                conn,
                current,
                change="confirm",
                status="active",
                by=ctx.actor,
                at=at,
                reason=reason or "confirmed on the approval page",
            )
    else:
        restore = _last_confirmed(conn, entity_id, current.version)
        if restore is None:  # never confirmed: the revert undoes the create itself
            children = _active_children(conn, entity_id)
            if children:
                raise HasChildren(
                    f"{entity_id} was never confirmed; reverting it archives it, but it has "
                    f"{len(children)} active child(ren): {', '.join(children[:5])}.",
                    remedy="Revert or archive the children first.",
                    children=children,
                )
            new_version = write_version(
                conn,
                current,
                change="revert",
                status="archived",
                by=ctx.actor,
                at=at,
                reason=reason,
                valid_to=max(ctx.today(), current.valid_from),
            )
        else:
            _check_restore(conn, current, restore)
            new_version = write_version(
                conn,
                current,
                change="revert",
                status="active",
                by=ctx.actor,
                at=at,
                reason=reason,
                restore=restore,
            )
            if restore.parent_id != current.parent_id:
                on_move(conn, entity_id, restore.parent_id)
            if (restore.name, restore.aliases) != (current.name, current.aliases):
                seq = int(
                    conn.execute("SELECT seq FROM entity WHERE id = ?", (entity_id,)).fetchone()[0]
                )
                put_text(conn, seq, restore.name, restore.aliases)
    out = _insert_review(ctx, conn, scope, value.target, value.verdict, reason or None, new_version)
    now = current_version(conn, entity_id)
    steps = [Next(tool="entity_path", why="see the entity's place and its versions")]
    answer = ReviewAnswer(
        review=out,
        entity=entity_state(conn, now, scope, ctx.public_url()),
        path=entity_path(conn, entity_id),
        next=steps,
    )
    return answer


def review_link(ctx: Context, conn: Connection, scope: str, value: ReviewRequest) -> ReviewAnswer:
    link_id = value.target.removeprefix("link/")
    row = conn.execute("SELECT * FROM link WHERE id = ?", (link_id,)).fetchone()
    if row is None:
        raise NotFound(
            f"There is no link {link_id}.",
            remedy="Reload the approval page; the item list shows what waits for a decision.",
        )
    _decided(conn, value.target)
    if row["origin"] != "proposed":
        raise AlreadyDecided(
            f"{link_id} is a {row['origin']} link; only proposed links wait for a review.",
            current="confirmed",
        )
    if row["valid_to"] is not None:
        raise StateChanged(f"{link_id} ended at {row['valid_to']}; there is nothing to decide.")
    if value.verdict == "revert":
        raise ValidationFailed(
            "revert is for entity changes; a proposed link is rejected.",
            remedy="Use verdict reject with a reason.",
        )
    reason = (value.reason or "").strip() or None
    out = _insert_review(ctx, conn, scope, value.target, value.verdict, reason, None)
    ends = [r for r in (row["from_ref"], row["to_ref"]) if r.startswith("entity/")]
    return ReviewAnswer(
        review=out,
        link=read_link(conn, link_id),
        path=entity_path(conn, ends[0].removeprefix("entity/")) if ends else [],
        next=[Next(tool="link_list", why="see the links of the item")],
    )
