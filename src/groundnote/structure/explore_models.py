"""Inputs and answers of the explorer pages: a scope's overview, its tree level by level, an
entity with its history and neighbourhood, search, and the operation log (issue 18)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from groundnote.core.models import SearchOutput
from groundnote.domain.guidance import PathItem, StrictModel
from groundnote.domain.ids import EntityId, ScopeName
from groundnote.graph.models import EntityOut, Group, TreeOutput
from groundnote.structure.models import Counts

__all__ = [
    "ACTIVITY_PAGE",
    "NEIGHBOURS_SHOWN",
    "ActivityInput",
    "ActivityPage",
    "ActivityRow",
    "EntityInput",
    "EntityPage",
    "Neighbour",
    "NeighbourGroup",
    "Neighbourhood",
    "ReviewView",
    "ScopeInput",
    "ScopePage",
    "ScopeSearchInput",
    "ScopeSearchPage",
    "ScopeTreeInput",
    "ScopeTreePage",
    "Tally",
    "VersionView",
]

ACTIVITY_PAGE = 50
# How many neighbours of one kind the picture draws; the rest are counted as "+N more".
NEIGHBOURS_SHOWN = 8


class ScopeInput(StrictModel):
    scope: ScopeName


class Tally(BaseModel):
    key: str
    count: int


class ActivityRow(BaseModel):
    id: str
    at: str
    actor: str
    channel: str
    operation: str
    outcome: str
    refs: list[str]


class ScopePage(BaseModel):
    scope: str
    entities: list[Tally] = Field(description="Entities that are not archived, by type.")
    rules: list[Tally] = Field(description="Rules by status.")
    sources: list[Tally] = Field(description="Stored sources by kind.")
    pending: Counts
    top_level: int = Field(description="Top-level entities: where the tree starts.")
    latest: list[ActivityRow] = Field(description="The newest changes, page reads left out.")


class ScopeTreeInput(StrictModel):
    scope: ScopeName
    id: EntityId | None = Field(
        None, description="The entity whose children to list; omitted: the top."
    )
    page: int = Field(1, ge=1, le=100_000, description="50 children a page (seed 000 §6).")


class ScopeTreePage(BaseModel):
    scope: str
    tree: TreeOutput


class EntityInput(StrictModel):
    id: EntityId
    links_page: int = Field(1, ge=1, le=100_000, description="Page of the grouped links, 50 each.")


class ReviewView(BaseModel):
    id: str
    verdict: str
    by: str
    at: str
    reason: str | None
    new_version: int | None


class VersionView(BaseModel):
    """One version of an entity as its timeline shows it: what changed against the one before."""

    version: int
    change: str
    status: str
    name: str
    channel: str
    changed_by: str
    changed_at: str
    reason: str
    evidence: str | None
    renamed_from: str | None = None
    aliases_added: list[str] = Field(default_factory=list)
    aliases_removed: list[str] = Field(default_factory=list)
    parent_before: list[PathItem] | None = Field(
        None, description="The parent's path before a move; null when the parent stayed."
    )
    parent_after: list[PathItem] = Field(default_factory=list)
    reviews: list[ReviewView] = Field(default_factory=list)
    pending: bool = Field(False, description="An agent version no person has settled yet.")


class Neighbour(BaseModel):
    ref: str
    label: str
    link_type: str
    direction: Literal["out", "in", "parent", "child"]
    proposed: bool
    entity_id: str | None = Field(None, description="Set when the other end is an entity.")


class NeighbourGroup(BaseModel):
    kind: str = Field(description="parent, child, rule, source, attachment or entity")
    total: int
    shown: list[Neighbour] = Field(description=f"At most {NEIGHBOURS_SHOWN}, confirmed first.")


class Neighbourhood(BaseModel):
    groups: list[NeighbourGroup]


class EntityPage(BaseModel):
    scope: str
    entity: EntityOut
    path: list[PathItem]
    versions: list[VersionView] = Field(description="Newest first.")
    groups: list[Group] = Field(description="Everything about it, as link_list grouped.")
    links_page: int
    links_pages: int
    links_total: int
    neighbourhood: Neighbourhood


class ScopeSearchInput(StrictModel):
    scope: ScopeName
    q: str | None = Field(None, max_length=500, description="Words as a person would say them.")
    proposed: bool = Field(False, description="Also proposed rules, marked as such.")


class ScopeSearchPage(BaseModel):
    scope: str
    q: str
    proposed: bool
    result: SearchOutput | None = Field(description="Null before a query was given.")


class ActivityInput(StrictModel):
    scope: ScopeName
    actor: str | None = Field(None, max_length=200, description="Only this grant or person.")
    operation: str | None = Field(None, max_length=100, description="Only this operation.")
    reads: bool = Field(False, description="Also page views and other reads.")
    page: int = Field(1, ge=1, le=100_000, description=f"{ACTIVITY_PAGE} rows a page.")


class ActivityPage(BaseModel):
    scope: str
    actor: str | None
    operation: str | None
    reads: bool
    actors: list[str]
    operations: list[str]
    total: int
    page: int
    pages: int
    rows: list[ActivityRow]
