"""Inputs and answers of the approval channel's structure operations (seed 000 §10)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from groundnote.domain.guidance import Next, PathItem, StrictModel
from groundnote.domain.ids import EntityId

__all__ = [
    "ArchiveAnswer",
    "ArchiveInput",
    "EntityState",
    "LinkState",
    "ReviewAnswer",
    "ReviewOut",
    "ReviewRequest",
]

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


class LinkState(BaseModel):
    id: str
    from_ref: str
    to_ref: str
    type: str
    origin: Literal["deterministic", "proposed", "human"]
    confidence: float | None
    status: Literal["confirmed", "proposed", "rejected"]
    reason: str | None


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
    link: LinkState | None = None
    path: list[PathItem] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)


class ArchiveAnswer(BaseModel):
    archived: list[EntityState] = Field(description="Every entity archived, children first.")
    path: list[PathItem] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)
