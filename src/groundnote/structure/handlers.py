"""One handler per structure operation: the person's decisions (review, archive) and the reads
behind the approval pages (overview, pending, proposals, rule). The registry admitted the
call on the approval channel, for a person, on the scope it names or carries (`ctx.scopes`).
"""

from __future__ import annotations

import math

from groundnote.capabilities import Context
from groundnote.domain.errors import NotFound, ReasonMissing
from groundnote.domain.guidance import Next
from groundnote.structure.archive import archive_entity
from groundnote.structure.models import (
    PAGE_SIZE,
    ArchiveAnswer,
    ArchiveInput,
    Overview,
    OverviewInput,
    PendingPage,
    ProposalsPage,
    ReviewAnswer,
    ReviewRequest,
    RuleInput,
    RuleView,
    ScopePageInput,
    ScopeWaiting,
    SourceInput,
    SourceView,
)
from groundnote.structure.reviews import review_entity, review_link
from groundnote.structure.views import counts, pending_items, proposed_rules, rule_view, source_view

__all__ = ["archive", "overview", "pending", "proposals", "review", "rule", "source"]


def review(ctx: Context, value: ReviewRequest) -> ReviewAnswer:
    [scope] = ctx.scopes  # the one the target carries
    if value.verdict in ("reject", "revert") and not (value.reason and value.reason.strip()):
        raise ReasonMissing(
            f"To {value.verdict}, give a reason.",
            remedy="Say why, in a sentence the agent can learn from, and send it again.",
        )
    with ctx.write(scope) as conn:
        if value.target.startswith("entity/"):
            return review_entity(ctx, conn, scope, value)
        return review_link(ctx, conn, scope, value)


def archive(ctx: Context, value: ArchiveInput) -> ArchiveAnswer:
    [scope] = ctx.scopes  # the one the id carries
    with ctx.write(scope) as conn:
        archived, path = archive_entity(ctx, conn, scope, value)
    steps = [Next(tool="entity_tree", why="see what remains under the parent")]
    return ArchiveAnswer(archived=archived, path=path, next=steps)


def overview(ctx: Context, _: OverviewInput) -> Overview:
    scopes = []
    for name in ctx.scopes:
        with ctx.scope_db(name).read() as conn:
            found = counts(conn)
            total, items = pending_items(conn, limit=5)
        scopes.append(ScopeWaiting(name=name, counts=found, entries=items, total=total))
    return Overview(scopes=scopes, pending=sum(s.counts.total for s in scopes))


def _pages(total: int) -> int:
    return max(1, math.ceil(total / PAGE_SIZE))


def pending(ctx: Context, value: ScopePageInput) -> PendingPage:
    with ctx.scope_db(value.scope).read() as conn:
        total, items = pending_items(conn, limit=PAGE_SIZE, offset=(value.page - 1) * PAGE_SIZE)
    return PendingPage(
        scope=value.scope, total=total, page=value.page, pages=_pages(total), items=items
    )


def proposals(ctx: Context, value: ScopePageInput) -> ProposalsPage:
    with ctx.scope_db(value.scope).read() as conn:
        total, rules = proposed_rules(conn, limit=PAGE_SIZE, offset=(value.page - 1) * PAGE_SIZE)
    return ProposalsPage(
        scope=value.scope, total=total, page=value.page, pages=_pages(total), rules=rules
    )


def rule(ctx: Context, value: RuleInput) -> RuleView:
    [scope] = ctx.scopes  # the one the rule id carries
    with ctx.scope_db(scope).read() as conn:
        found = rule_view(conn, value.id)
    if found is None:
        raise NotFound(f"There is no rule {value.id}.")
    return found


def source(ctx: Context, value: SourceInput) -> SourceView:
    with ctx.scope_db(value.scope).read() as conn:
        found = source_view(conn, value.scope, value.id)
    if found is None:
        # Also the answer for a source stored only in another scope: nothing says it exists.
        raise NotFound(
            f"There is no source {value.id} in {value.scope}.",
            remedy="Check the id, or open the page from a rule or a link that cites it.",
        )
    return found
