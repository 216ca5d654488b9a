"""Inputs and answers of the approval channel's structure operations (seed 000 §10), and of
the reads behind the approval pages (seed 000 §12)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from groundnote.domain.guidance import Next, PathItem, StrictModel
from groundnote.domain.ids import EntityId, RuleId, ScopeName
from groundnote.graph import LinkOut

__all__ = [
    "PAGE_SIZE",
    "ArchiveAnswer",
    "ArchiveInput",
    "AttachmentView",
    "ChangeView",
    "Counts",
    "EndView",
    "EntityItem",
    "EntityState",
    "LinkItem",
    "LinkedView",
    "Overview",
    "OverviewInput",
    "PendingPage",
    "ProposalsPage",
    "ReviewAnswer",
    "ReviewOut",
    "ReviewRequest",
    "RuleInput",
    "RuleView",
    "ScopePageInput",
    "ScopeWaiting",
    "SourceInput",
    "SourceView",
    "VersionRow",
]

PAGE_SIZE = 20

_ENTITY_VERSION = r"entity/[a-z][a-z0-9-]{1,39}-e\d{4,}@[1-9]\d*"
_LINK = r"link/[a-z][a-z0-9-]{1,39}-l\d{4,}"


class ReviewRequest(StrictModel):
    """The seed's ReviewRequest: a verdict on one entity version or one proposed link."""

    target: str = Field(
        pattern=rf"^({_ENTITY_VERSION}|{_LINK})$",
        description="entity/<id>@<version> (the current version) or link/<id>.",
    )
    verdict: Literal["confirm", "reject", "revert"] = Field(
        description="confirm an entity version or a link; reject a link; revert an entity change."
    )
    reason: str | None = Field(
        None, min_length=1, max_length=1000, description="Required for reject and revert."
    )


class ArchiveInput(StrictModel):
    id: EntityId
    version: int = Field(
        ge=1, description="The version the person saw; a newer one is refused as version-outdated."
    )
    reason: str | None = Field(None, min_length=1, max_length=1000)
    subtree: bool = Field(
        False,
        description="Archive the entity's whole subtree with it, children first; "
        "without it an entity with active children is refused as has-children.",
    )


class EntityState(BaseModel):
    ref: str = Field(description="entity/<id>@<version> of the current version.")
    id: str
    scope: str
    type: str
    name: str
    aliases: list[str]
    status: Literal["active", "unconfirmed", "archived"]
    parent_id: str | None
    version: int
    valid_from: str
    valid_to: str | None
    pending: bool = Field(description="An agent version still waits for a person.")
    approval_url: str | None


class ReviewOut(BaseModel):
    id: str
    target: str
    verdict: Literal["confirm", "reject", "revert"]
    by: str
    at: str
    reason: str | None
    new_version: int | None = Field(description="The entity version this review wrote, if any.")


class ReviewAnswer(BaseModel):
    review: ReviewOut
    entity: EntityState | None = None
    link: LinkOut | None = None
    path: list[PathItem] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)


class ArchiveAnswer(BaseModel):
    archived: list[EntityState] = Field(description="Every entity archived, children first.")
    path: list[PathItem] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)


# -- what the approval pages read ---------------------------------------------------------


class VersionRow(BaseModel):
    """One stored entity version, as the approval channel reads and copies it."""

    model_config = ConfigDict(frozen=True)

    id: str
    version: int
    type: str
    name: str
    aliases: list[str]
    parent_id: str | None
    status: Literal["active", "unconfirmed", "archived"]
    valid_from: str
    valid_to: str | None
    evidence: str | None
    change: str
    channel: str
    changed_by: str
    changed_at: str
    reason: str
    aliases_json: str = Field(
        description="The stored text: a copy must match it byte for byte (state-changed)."
    )

    @property
    def ref(self) -> str:
        return f"entity/{self.id}@{self.version}"


class Counts(BaseModel):
    entities: int
    links: int
    rules: int

    @property
    def total(self) -> int:
        return self.entities + self.links + self.rules


class ChangeView(BaseModel):
    row: VersionRow
    before: list[PathItem] | None = Field(
        description="The path before a move or rename; null for a create."
    )
    after: list[PathItem]
    aliases_added: list[str] = Field(default_factory=list)
    aliases_removed: list[str] = Field(default_factory=list)


class EntityItem(BaseModel):
    kind: Literal["entity"] = "entity"
    id: str
    at: str
    current: VersionRow
    path: list[PathItem]
    changes: list[ChangeView]
    subtree_size: int = Field(description="Active descendants that a move carries along.")
    overridden: list[dict[str, Any]] = Field(
        description="Duplicate candidates the create was forced past."
    )


class EndView(BaseModel):
    ref: str
    kind: str = Field(description="entity, rule, source or attachment")
    label: str
    path: list[PathItem] = Field(default_factory=list)
    status: str | None = None


class LinkItem(BaseModel):
    kind: Literal["link"] = "link"
    id: str
    at: str
    type: str
    confidence: float | None
    reason: str | None
    evidence: str | None
    by: str
    source: EndView
    target: EndView


class LinkedView(BaseModel):
    """An open link as seen from one of its ends: what is at the other end, and whether a
    person confirmed it or it still waits."""

    id: str
    type: str
    direction: Literal["out", "in"] = Field(description="out: this end is the link's source.")
    status: Literal["confirmed", "proposed"]
    other: EndView


class RuleView(BaseModel):
    id: str
    scope: str
    statement: str
    status: str
    auto_adopted: bool
    valid_from: str
    valid_to: str | None
    supersedes: str | None
    proposed_at: str
    proposed_by: str
    quote: str | None
    evidence: list[EndView]
    decisions: list[dict[str, str | None]]
    concerns: list[LinkItem]
    concerned: list[LinkedView] = Field(
        default_factory=list, description="Every open concerns link of the rule, either status."
    )


class OverviewInput(StrictModel):
    pass


class ScopeWaiting(BaseModel):
    name: str
    counts: Counts
    entries: list[EntityItem | LinkItem] = Field(description="The newest five pending items.")
    total: int = Field(description="Pending entities and links in all.")


class Overview(BaseModel):
    scopes: list[ScopeWaiting]
    pending: int = Field(description="Everything waiting, in every scope.")


class ScopePageInput(StrictModel):
    scope: ScopeName
    page: int = Field(1, ge=1, le=100_000, description=f"{PAGE_SIZE} items a page.")


class PendingPage(BaseModel):
    scope: str
    total: int
    page: int
    pages: int
    items: list[EntityItem | LinkItem]


class ProposalsPage(BaseModel):
    scope: str
    total: int
    page: int
    pages: int
    rules: list[RuleView]


class RuleInput(StrictModel):
    id: RuleId


class SourceInput(StrictModel):
    scope: ScopeName
    id: str = Field(
        min_length=6,
        max_length=1000,
        pattern=r"^(mail:<[^<>\s]+>|jamie:[A-Za-z0-9._-]{1,200}|note:[A-Za-z0-9._-]{1,200})$",
        description="The source id: mail:<message id>, jamie:<meeting id> or note:<id>.",
    )


class AttachmentView(BaseModel):
    n: int
    ref: str
    filename: str
    media_type: str
    size: int
    text: str | None = Field(description="The extracted text; null when none was extracted.")


class SourceView(BaseModel):
    """A mail or a meeting as a person reads it, with everything that points at it."""

    scope: str
    id: str
    ref: str
    kind: Literal["mail", "meeting", "note"]
    title: str
    day: str
    sent_at: str | None
    sender: str | None
    recipients: list[str]
    cc: list[str]
    participants: list[str]
    body: str
    in_reply_to: str | None = Field(description="The source id it answers, if stored here.")
    attachments: list[AttachmentView]
    rules: list[EndView] = Field(description="The rules citing it or one of its attachments.")
    links: list[LinkedView] = Field(description="Open links to or from it and its attachments.")
