"""The inputs and answers of every context operation: a content project's directory commands,
its bindings to scopes, and how a term is used (search, occurrences)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from groundnote.context.locales import Locale
from groundnote.context.projectarg import (
    PROJECT_NAME,
    PROJECT_PATH,
    SCOPE,
)
from groundnote.context.window import Instant
from groundnote.domain.guidance import Next, StrictModel

__all__ = [
    "BindInput",
    "BindOutput",
    "BoundProject",
    "CollectionUse",
    "CommitInput",
    "CommitOutput",
    "ConceptUse",
    "OccurrenceOut",
    "OccurrencesInput",
    "OccurrencesOutput",
    "Passage",
    "ProjectUse",
    "ProjectsInput",
    "ProjectsOutput",
    "PublishInput",
    "PublishOutput",
    "SearchInput",
    "SearchOutput",
    "StatusInput",
    "StatusOutput",
    "SubsystemChange",
    "SubsystemStatus",
    "TermUse",
    "UnbindInput",
    "UnbindOutput",
    "UpInput",
    "UpOutput",
]


class SubsystemChange(BaseModel):
    subsystem: str
    add: int
    change: int
    remove: int


class UpInput(StrictModel):
    path: str = PROJECT_PATH
    plan: bool = Field(False, description="Only say what would change; create nothing.")


class UpOutput(BaseModel):
    project: str
    store: str = Field(description="The derived store file.")
    planned: bool = Field(
        description="True: nothing was written, these are the changes `up` would make."
    )
    changes: list[SubsystemChange]
    blocks: int | None = Field(None, description="Blocks in the cache after the run.")
    nodes: int | None = Field(None, description="Graph nodes of the project after the run.")
    edges: int | None = Field(None, description="Graph edges of the project after the run.")
    staged: int | None = Field(
        None, description="Unit states staged and not yet committed: lost if store.db is deleted."
    )
    warnings: list[str] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)


class StatusInput(StrictModel):
    path: str = PROJECT_PATH


class SubsystemStatus(BaseModel):
    subsystem: str
    version: int = Field(description="The highest migration applied.")


class StatusOutput(BaseModel):
    project: str
    store: str
    present: bool = Field(
        description="False when the block cache holds no blocks: run `groundnote context up`."
    )
    subsystems: list[SubsystemStatus]
    rows: dict[str, int] = Field(description="Rows per table.")
    staged: int = Field(description="Unit states staged and not yet committed.")
    pending: list[SubsystemChange] = Field(description="What `up` would change now.")
    warnings: list[str] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)


class CommitInput(StrictModel):
    path: str = PROJECT_PATH


class CommitOutput(BaseModel):
    committed: int = Field(description="Unit states written to their shards.")
    shards: list[str] = Field(description="The shard files written, relative to the project.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class PublishInput(StrictModel):
    path: str = PROJECT_PATH


class PublishOutput(BaseModel):
    project: str
    scope: str = Field(description="The scope the project is bound to; its readers see it.")
    nodes: int = Field(description="Nodes of the project now in the rollup.")
    edges: int = Field(description="Edges of the project now in the rollup.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class BindInput(StrictModel):
    path: str = PROJECT_PATH
    scope: str = Field(description="The scope whose readers may search the project.")
    project: str | None = Field(
        None, description="The name agents use for it; default: the recipe's project name."
    )


class BoundProject(BaseModel):
    scope: str
    project: str
    path: str = Field(description="The project's directory on the server.")
    present: bool = Field(
        description="False when its store holds no blocks: run `groundnote context up PATH`."
    )


class BindOutput(BaseModel):
    bound: BoundProject
    next: list[Next] = Field(default_factory=list, max_length=3)


class UnbindInput(StrictModel):
    project: str = Field(description="The bound project's name, as `context projects` lists it.")
    scope: str = Field(description="The scope it is bound to.")


class UnbindOutput(BaseModel):
    unbound: str = Field(description="The directory no longer served.")
    unpublished: int = Field(description="Graph scopes of the project removed from the rollup.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class ProjectsInput(StrictModel):
    scope: str | None = Field(
        None, description="Only this scope's projects; omitted: every scope your grant may read."
    )


class ProjectsOutput(BaseModel):
    projects: list[BoundProject]
    next: list[Next] = Field(default_factory=list, max_length=3)


class SearchInput(StrictModel):
    scope: str | None = SCOPE
    project: str | None = PROJECT_NAME
    term: str = Field(min_length=1, description="A term in any locale, or a concept id.")
    at: Instant | None = Field(
        None, description="The instant the standing is asked for (default: now)."
    )
    market: str | None = Field(None, description="The market the standing is asked for.")
    profile: str | None = Field(None, description="With channel: the coordinate to report.")
    channel: str | None = Field(None, description="With profile: the coordinate to report.")
    rollup: bool = Field(
        False,
        description="Count across every project published to this home's rollup "
        "(`groundnote context publish`) from the scopes your grant may read, not only this one.",
    )


class TermUse(BaseModel):
    term: str
    locale: str
    blocks: int
    count: int
    status: str = Field(
        description="preferred, admitted, deprecated or forbidden at `at` in `market`; "
        "unlisted when no entry of the terms source applies there."
    )


class CollectionUse(BaseModel):
    collection: str
    count: int


class ProjectUse(BaseModel):
    project: str
    stream: str
    count: int
    terms: list[TermUse]
    collections: list[CollectionUse]


class Passage(BaseModel):
    project: str
    document: str
    term: str
    locale: str
    text: str | None = Field(
        description="The block's text from the block cache; null when the cache no longer "
        "holds the block (the count stands)."
    )


class ConceptUse(BaseModel):
    concept: str
    projects: list[ProjectUse]
    passages: list[Passage] = Field(description="Up to three passages the concept is used in.")


class SearchOutput(BaseModel):
    term: str
    at: str
    market: str | None
    concepts: list[ConceptUse]
    governed: list[str] | None = Field(
        None, description="Collections governed at the coordinate (profile, channel) at `at`."
    )
    as_of: str = Field(description="Where the counts come from.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class OccurrencesInput(StrictModel):
    term: str = Field(min_length=1, description="The exact term text (whole word or phrase).")
    scope: str | None = SCOPE
    project: str | None = PROJECT_NAME
    locale: Locale | None = Field(
        None, description="Only this locale (BCP-47); omitted: the source and every target."
    )


class OccurrenceOut(BaseModel):
    document: str
    unit: str
    locale: str = Field(
        description="The locale of the text searched; the source's own locale for source text."
    )
    positions: list[tuple[int, int]] = Field(description="[start, end) offsets in the block text.")
    text: str


class OccurrencesOutput(BaseModel):
    term: str
    occurrences: list[OccurrenceOut]
    next: list[Next] = Field(default_factory=list, max_length=3)
