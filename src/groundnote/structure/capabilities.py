"""The structure capabilities, all on the approval channel (persons only, never MCP: G7, AT4):
the decisions review and archive, and the reads behind the approval pages."""

from __future__ import annotations

from typing import Any

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    HttpExposure,
    PageExposure,
    Tenancy,
)
from groundnote.structure import explore, handlers
from groundnote.structure.explore_models import (
    ActivityInput,
    ActivityPage,
    EntityInput,
    EntityPage,
    ScopeInput,
    ScopePage,
    ScopeSearchInput,
    ScopeSearchPage,
    ScopeTreeInput,
    ScopeTreePage,
)
from groundnote.structure.models import (
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
    SourceInput,
    SourceView,
)

__all__ = ["CAPABILITIES"]

_PAGE_READ = Annotations(read_only=True, idempotent=True)

CAPABILITIES: list[Capability[Any, Any]] = [
    Capability(
        name="structure.review",
        kind="command",
        right=Right.DECIDE,
        tenancy=Tenancy.id_field("target"),
        input=ReviewRequest,
        output=ReviewAnswer,
        description=(
            "A person confirms or reverts an agent's change to an entity (target: its current "
            "version, entity/<id>@<n>), or confirms or rejects a proposed link (link/<id>). "
            "Revert restores the last confirmed state as a new version, or archives an entity "
            "that was never confirmed. Reject and revert need a reason. A review of an older "
            "version is refused as version-outdated (naming the current one), a second review "
            "as already-decided."
        ),
        handler=handlers.review,
        http=HttpExposure("POST", "/v1/reviews"),
        approval=True,
        annotations=Annotations(read_only=False, destructive=True),
        log_operation="review_structure",
    ),
    Capability(
        name="structure.archive",
        kind="command",
        right=Right.DECIDE,
        tenancy=Tenancy.id_field("id"),
        input=ArchiveInput,
        output=ArchiveAnswer,
        description=(
            "A person archives an entity (give the version they saw). Archived is terminal. An "
            "entity with active children is refused as has-children unless subtree is true; "
            "then the whole subtree is archived together, children first."
        ),
        handler=handlers.archive,
        http=HttpExposure("POST", "/v1/entities/{id}/archive"),
        approval=True,
        annotations=Annotations(read_only=False, destructive=True),
        log_operation="archive_entity",
    ),
    Capability(
        name="structure.overview",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.instance(),
        input=OverviewInput,
        output=Overview,
        description=(
            "What waits for the person in every scope they may read: counts of entity "
            "changes, proposed links and proposed rules, and the newest five structure changes."
        ),
        handler=handlers.overview,
        page=PageExposure("/approval"),
        approval=True,
        annotations=_PAGE_READ,
    ),
    Capability(
        name="structure.pending",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopePageInput,
        output=PendingPage,
        description=(
            "Every pending structure change of a scope, newest first, a page at a time: agent "
            "versions with the path before and after, who, why, the evidence and overridden "
            "duplicate candidates, and proposed links with both ends."
        ),
        handler=handlers.pending,
        page=PageExposure("/approval/structure"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_pending",
    ),
    Capability(
        name="structure.proposals",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopePageInput,
        output=ProposalsPage,
        description=(
            "The proposed rules of a scope that wait to be adopted or rejected, newest first, "
            "a page at a time, each with its evidence and pending concerns links."
        ),
        handler=handlers.proposals,
        page=PageExposure("/approval/proposals"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_proposals",
    ),
    Capability(
        name="structure.rule",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.id_field("id"),
        input=RuleInput,
        output=RuleView,
        description=(
            "One rule of any status as the person reads or decides on it: statement, evidence "
            "with its sources, validity, every decision, the entities it concerns (confirmed "
            "and proposed) and the proposed concerns links that wait."
        ),
        handler=handlers.rule,
        page=PageExposure("/approval/rules/{id}"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_rule",
    ),
    Capability(
        name="structure.source",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=SourceInput,
        output=SourceView,
        description=(
            "One stored mail or meeting as a person reads it: subject, sender, recipients, "
            "date, the whole body, its attachments with their extracted text, the rules citing "
            "it and the open links to or from it. A source of another scope is not found."
        ),
        handler=handlers.source,
        page=PageExposure("/approval/source"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_source",
    ),
    Capability(
        name="structure.scope",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopeInput,
        output=ScopePage,
        description=(
            "A scope at a glance for a person: entities by type, rules by status, sources by "
            "kind, what waits for a decision, and the newest changes from the operation log."
        ),
        handler=explore.scope_page,
        page=PageExposure("/approval/scope"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_scope",
    ),
    Capability(
        name="structure.tree",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopeTreeInput,
        output=ScopeTreePage,
        description=(
            "One level of a scope's entity tree, 50 a page (seed 000 §6): the top level, or the "
            "children of one entity, each with its type, status and child count, as entity_tree "
            "answers. An entity of another scope is not found."
        ),
        handler=explore.tree,
        page=PageExposure("/approval/tree"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_tree",
    ),
    Capability(
        name="structure.entity",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.id_field("id"),
        input=EntityInput,
        output=EntityPage,
        description=(
            "One entity as a person reads it: full path, status, aliases, validity, every "
            "version newest first with who, channel, reason, evidence, the reviews of it and "
            "what changed (name, aliases, parent), everything linked to it grouped as "
            "link_list grouped answers, and its neighbourhood grouped by kind."
        ),
        handler=explore.entity,
        page=PageExposure("/approval/entities/{id}"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_entity",
    ),
    Capability(
        name="structure.search",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopeSearchInput,
        output=ScopeSearchPage,
        description=(
            "search in one scope for a person: the full bundles (rule, evidence, what backs and "
            "concerns it), proposed rules only when asked. Without words, the empty form."
        ),
        handler=explore.search,
        page=PageExposure("/approval/search"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="search",
    ),
    Capability(
        name="structure.activity",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ActivityInput,
        output=ActivityPage,
        description=(
            "A scope's operation log for a person, newest first, 50 a page: who did what, when, "
            "on which channel, with what outcome; filtered by actor and operation, reads and "
            "page views only when asked."
        ),
        handler=explore.activity,
        page=PageExposure("/approval/activity"),
        approval=True,
        annotations=_PAGE_READ,
        log_operation="approval_activity",
    ),
]
