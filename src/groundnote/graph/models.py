"""Input and output models of the graph capabilities (seed 000 §2, §8, §9.2)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from groundnote.domain.guidance import Next, PathItem, StrictModel
from groundnote.domain.ids import EntityId, IdempotencyKey, ScopeName
from groundnote.domain.text import visible_line, visible_text
from groundnote.graph.normalize import MAX_CHARS, normalize

__all__ = [
    "ENDPOINT_RE",
    "Candidate",
    "CreateInput",
    "CreateOutput",
    "EntityOut",
    "LinkListInput",
    "LinkListOutput",
    "LinkOut",
    "LinkProposeInput",
    "LinkProposeOutput",
    "MoveInput",
    "MoveOutput",
    "PathInput",
    "PathOutput",
    "ResolveInput",
    "ResolveOutput",
    "ScopeTreeInput",
    "TreeInput",
    "TreeNode",
    "TreeOutput",
    "UpdateInput",
    "UpdateOutput",
    "VersionOut",
]


def _bounded(value: str) -> str:
    # NFKC can expand one character to 18, so the bound holds after normalisation as well.
    key = normalize(value)
    if not key:
        raise ValueError("needs at least one letter or digit")
    if len(key) > MAX_CHARS:
        raise ValueError(f"is {len(key)} characters long once normalised; at most {MAX_CHARS}")
    return value


Name = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_CHARS),
    AfterValidator(visible_line),
    AfterValidator(_bounded),
]
RawAlias = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CHARS)]
Evidence = Annotated[
    str, StringConstraints(min_length=1, max_length=1000), AfterValidator(visible_text)
]
Reason = Annotated[str, StringConstraints(max_length=1000), AfterValidator(visible_text)]

_SOURCE = r"(?:jamie:[A-Za-z0-9._-]{1,200}|note:[A-Za-z0-9._-]{1,200}|mail:<[^<>\s]+>)"
ENDPOINT_RE = (
    r"^(?:rule/[a-z][a-z0-9-]{1,39}-\d{4,}|entity/[a-z][a-z0-9-]{1,39}-e\d{4,}"
    + "|source/"
    + _SOURCE
    + "|attachment/"
    + _SOURCE
    + r"#[1-9]\d*)$"
)
Endpoint = Annotated[str, StringConstraints(pattern=ENDPOINT_RE)]
ProposableType = Literal["concerns", "belongs_to", "contradicts", "mentions", "same_as"]
LinkType = Literal[
    "concerns",
    "belongs_to",
    "contradicts",
    "mentions",
    "same_as",
    "replies_to",
    "attachment_of",
    "sourced_from",
    "supersedes",
]
Status = Literal["active", "unconfirmed", "archived"]
MatchKind = Literal["exact", "alias", "tokens", "typo", "initials", "similar", "semantic"]


class EntityOut(BaseModel):
    ref: str = Field(description="entity/<id>")
    id: str
    scope: str
    type: str
    name: str
    aliases: list[str]
    status: Status
    parent_id: str | None
    valid_from: str
    valid_to: str | None
    children: int = Field(description="Direct children that are not archived.")
    pending: bool = Field(description="An agent version waits for a person's review.")
    approval_url: str | None = Field(description="Where a person confirms it, when pending.")


class Candidate(BaseModel):
    id: str
    name: str
    type: str
    status: Status
    aliases: list[str]
    path: list[str] = Field(description="Names from the top level down, the entity last.")
    score: float
    match: MatchKind


class _Guided(BaseModel):
    path: list[PathItem] = Field(description="The full path of the entity, from the top level.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class ResolveInput(StrictModel):
    scope: ScopeName
    q: Name = Field(description="The name, alias or misspelling to look up.")
    type: str | None = Field(None, description="Only entities of this type.")


class ResolveOutput(_Guided):
    candidates: list[Candidate] = Field(max_length=5)


class CreateInput(StrictModel):
    scope: ScopeName
    type: str = Field(description="One of the entity types configured for this store.")
    name: Name
    aliases: list[Name] = Field(default_factory=list, max_length=20)
    parent_id: EntityId | None = Field(None, description="null only for a new top level.")
    evidence: Evidence | None = Field(None, description="A ref (source/…, URL) or short text.")
    reason: Reason | None = None
    force: bool = Field(False, description="Create despite similar entities; needs a reason.")
    idempotency_key: IdempotencyKey | None = Field(
        None,
        description=(
            "Any unique text (e.g. a UUID) to make a retry safe: a call repeated with the same "
            "key and input gets the first answer and writes nothing again."
        ),
    )


_SIMILAR = (
    "Entities of the same type with a similar name under another parent: not refused, shown "
    "so that you can ask whether one of them is meant."
)


class CreateOutput(_Guided):
    entity: EntityOut
    created: bool
    similar: list[Candidate] = Field(default_factory=list, max_length=5, description=_SIMILAR)


class MoveInput(StrictModel):
    scope: ScopeName
    id: EntityId
    parent_id: EntityId | None = Field(description="The new parent; null: the top level.")
    evidence: Evidence | None = None
    reason: Reason | None = None


class MoveOutput(_Guided):
    entity: EntityOut
    moved: bool
    old_path: list[PathItem]
    subtree_size: int = Field(description="Entities moved, the entity included.")


class UpdateInput(StrictModel):
    scope: ScopeName
    id: EntityId
    name: Name | None = Field(None, description="The new name.")
    aliases_add: list[Name] = Field(default_factory=list, max_length=20)
    aliases_remove: list[RawAlias] = Field(default_factory=list, max_length=20)
    evidence: Evidence | None = None
    reason: Reason | None = None
    force: bool = Field(False, description="Change despite similar entities; needs a reason.")


class UpdateOutput(_Guided):
    entity: EntityOut
    updated: bool
    similar: list[Candidate] = Field(default_factory=list, max_length=5, description=_SIMILAR)


class TreeInput(StrictModel):
    scope: ScopeName
    id: EntityId | None = Field(None, description="The entity to expand; omitted: the top level.")
    depth: int = Field(1, ge=1, le=1000, description="Levels below the entity, at most 3.")
    page: int = Field(1, ge=1, le=100_000, description="Page of the direct children, 50 per page.")


class ScopeTreeInput(StrictModel):
    scope: ScopeName
    depth: int = Field(1, ge=1, le=1000, description="Levels below the top, at most 3.")
    page: int = Field(1, ge=1, le=100_000, description="Page of the top level, 50 per page.")


class TreeNode(BaseModel):
    id: str
    name: str
    type: str
    status: Status
    children: int
    hidden_children: int = Field(description="Children not in this answer; expand with its id.")
    pending: bool
    nodes: list[TreeNode] = Field(default_factory=list)


class TreeOutput(_Guided):
    entity: EntityOut | None = Field(description="The expanded entity; null for the top level.")
    nodes: list[TreeNode]
    page: int
    pages: int
    total: int = Field(description="Direct children (top-level entities) in all pages.")
    levels: dict[str, int] = Field(description="Entities per level below, within the depth.")


class PathInput(StrictModel):
    scope: ScopeName
    id: EntityId


class VersionOut(BaseModel):
    version: int
    change: str
    type: str
    name: str
    aliases: list[str]
    parent_id: str | None
    status: Status
    channel: str
    changed_by: str
    changed_at: str
    reason: str
    evidence: str | None
    reviewed: bool = Field(description="A person has reviewed this version.")


class PathOutput(_Guided):
    entity: EntityOut
    versions: list[VersionOut]


class LinkOut(BaseModel):
    id: str | None
    from_ref: str
    to_ref: str
    type: LinkType
    origin: Literal["deterministic", "proposed", "human"]
    confidence: float | None
    status: Literal["confirmed", "proposed", "rejected"]
    reason: str | None
    evidence: str | None
    valid_from: str
    valid_to: str | None
    created_at: str | None


class LinkProposeInput(StrictModel):
    scope: ScopeName
    from_ref: Endpoint
    to_ref: Endpoint
    type: ProposableType
    confidence: float = Field(ge=0, le=1, description="Your honest confidence, 0 to 1.")
    reason: Reason | None = Field(None, description="Names the evidence; required.")
    evidence: Evidence | None = None


class LinkProposeOutput(_Guided):
    link: LinkOut
    created: bool


class LinkListInput(StrictModel):
    scope: ScopeName
    ref: Endpoint
    grouped: bool = Field(False, description="On an entity: everything about it and below.")
    page: int = Field(1, ge=1, le=100_000)


class Entry(BaseModel):
    ref: str
    kind: Literal["rule", "note", "meeting", "mail", "attachment", "entity"]
    title: str
    date: str | None
    link_type: str
    origin: Literal["deterministic", "proposed", "human"]
    proposed: bool = Field(description="Proposed and not yet confirmed (counted by confidence).")
    confidence: float | None
    via: list[str] = Field(description="Path names of the entity the link hangs on.")


class Group(BaseModel):
    kind: str
    entries: list[Entry]


class LinkListOutput(_Guided):
    links: list[LinkOut]
    groups: list[Group] = Field(default_factory=list)
    page: int
    pages: int
    total: int
