"""`context.search` and `context.occurrences`: how a term is used, counted and found live."""

from __future__ import annotations

from pydantic import BaseModel, Field

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.context import query
from groundnote.context.bindings import published_scopes
from groundnote.context.locales import SOURCE, Locale, is_canonical
from groundnote.context.occurrence import find
from groundnote.context.projectarg import AS_OF, PROJECT_NAME, SCOPE, populated, served
from groundnote.context.projectdb import ProjectDB
from groundnote.context.recipe import Recipe, load_recipe
from groundnote.context.rollup import rollup
from groundnote.context.vocabulary import Scope
from groundnote.context.window import Instant
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.domain.guidance import Next, StrictModel

__all__ = ["OCCURRENCES", "SEARCH"]

# -- search --------------------------------------------------------------------------------


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


def run_search(ctx: Context, value: SearchInput) -> SearchOutput:
    folder = served(ctx, value.scope, value.project)
    if (value.profile is None) != (value.channel is None):
        raise ValidationFailed(
            "profile and channel name one coordinate together; give both or neither.",
            key="channel" if value.channel is None else "profile",
        )
    at = value.at or ctx.clock.instant()
    recipe = load_recipe(folder)
    store = populated(folder)
    try:
        graph, views = (
            _rollup_views(ctx) if value.rollup else (store.graph, [Scope(recipe.workspace)])
        )
        concepts = store.terms.concepts_named(value.term)
        found = []
        for concept in concepts:
            used = [u for view in views for u in query.uses(graph, concept, view)]
            found.append(
                ConceptUse(
                    concept=concept,
                    projects=_projects(graph, concept, used, views, at, value.market),
                    passages=_passages(store, used, recipe),
                )
            )
        governed = None
        if value.profile is not None and value.channel is not None:
            governed = [
                f"{n.scope.project}:{n.local}" if value.rollup else n.local
                for view in views
                for n in query.collections_at_coordinate(
                    graph, value.profile, value.channel, view, at=at
                )
            ]
    finally:
        store.close()
    if not concepts:
        raise NotFound(
            f"No concept of the terms source has the term or id {value.term!r}.",
            remedy="Check the spelling, or add the concept to the terms source and run up.",
        )
    ctx.log.terms = [value.term]
    return SearchOutput(
        term=value.term,
        at=at,
        market=value.market,
        concepts=found,
        governed=governed,
        as_of=AS_OF,
        next=[Next(tool="context_occurrences", why="each use with its document and position")],
    )


def _rollup_views(ctx: Context) -> tuple[query.GraphReader, list[Scope]]:
    """The rollup, and the graph scopes in it the caller may read: those published by projects
    bound to the scopes its grant reaches."""
    views = published_scopes(ctx.home.instance, list(ctx.reachable_scopes()))
    if not views:
        raise NotFound(
            "No project of a scope your grant may read has been published to the rollup.",
            remedy="Run `groundnote context publish PATH` for each bound project first.",
        )
    return rollup(ctx.home.instance), views


def _passages(store: ProjectDB, used: list[query.Use], recipe: Recipe) -> list[Passage]:
    """Where the uses sit, read from this project's block cache by the content key each edge
    names; another project's block, or one the cache no longer holds, costs the text only."""
    passages = []
    for use in used[:3]:
        text = None
        if use.project == recipe.project:
            locale = SOURCE if use.locale == recipe.source_locale else use.locale
            text = store.blocks.text(use.content_key, locale)
        passages.append(
            Passage(
                project=use.project,
                document=use.document,
                term=use.term,
                locale=use.locale,
                text=text,
            )
        )
    return passages


def _projects(
    graph: query.GraphReader,
    concept: str,
    used: list[query.Use],
    views: list[Scope],
    at: str,
    market: str | None,
) -> list[ProjectUse]:
    per_collection: dict[tuple[str, str], dict[str, int]] = {}
    for use in used:
        bucket = per_collection.setdefault((use.project, use.stream), {})
        for label in use.collections:
            bucket[label] = bucket.get(label, 0) + use.count
    usage = [
        p
        for view in views
        for p in query.uses_by_project(graph, concept, view, at=at, market=market)
    ]
    return [
        ProjectUse(
            project=p.project,
            stream=p.stream,
            count=p.count,
            terms=[
                TermUse(
                    term=t.term, locale=t.locale, blocks=t.blocks, count=t.count, status=t.status
                )
                for t in p.terms
            ],
            collections=[
                CollectionUse(collection=label, count=n)
                for label, n in sorted(per_collection.get((p.project, p.stream), {}).items())
            ],
        )
        for p in usage
    ]


SEARCH: Capability[SearchInput, SearchOutput] = Capability(
    name="context.search",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=SearchInput,
    output=SearchOutput,
    description=(
        "Find how a term is used in a content project: for each concept holding it, the "
        "uses per project and collection, in which words, and how each word stands at an "
        "instant and market (preferred, admitted, deprecated, forbidden), and which "
        "collections a coordinate (profile, channel) governs then. The project is named by its "
        "scope (context_projects lists them). Counts are as of the last extraction "
        "(`groundnote context up`)."
    ),
    handler=run_search,
    mcp=McpExposure("context_search"),
    http=HttpExposure("GET", "/v1/context/search"),
    cli=CliExposure(("context", "search"), arguments=("term",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
)


# -- occurrences ---------------------------------------------------------------------------


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


def run_occurrences(ctx: Context, value: OccurrencesInput) -> OccurrencesOutput:
    folder = served(ctx, value.scope, value.project)
    recipe = load_recipe(folder)
    store = populated(folder)
    try:
        store.blocks.reconcile_index()  # the index is brought up to date before a search
        stored = [loc for loc in store.blocks.locales() if is_canonical(loc) or loc == SOURCE]
        locales = [recipe.source_locale if loc == SOURCE else loc for loc in stored]
        if value.locale is not None:
            locales = [loc for loc in locales if loc == value.locale]
        units: dict[str, list[tuple[str, str]]] = {}
        for place in store.blocks.placements():
            units.setdefault(place.content_key, []).append((place.path, place.unit))
        out = []
        for locale in locales:
            for hit in find(store.blocks, value.term, locale, recipe.source_locale):
                text = store.blocks.text(
                    hit.content_key, SOURCE if locale == recipe.source_locale else locale
                )
                for path, unit in units.get(hit.content_key, []):
                    out.append(
                        OccurrenceOut(
                            document=path,
                            unit=unit,
                            locale=locale,
                            positions=list(hit.positions),
                            text=text or "",
                        )
                    )
    finally:
        store.close()
    ctx.log.terms = [value.term]
    out.sort(key=lambda o: (o.document, o.unit, o.locale))
    return OccurrencesOutput(
        term=value.term,
        occurrences=out,
        next=[Next(tool="context_search", why="see the usage counts and the term's standing")],
    )


OCCURRENCES: Capability[OccurrencesInput, OccurrencesOutput] = Capability(
    name="context.occurrences",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=OccurrencesInput,
    output=OccurrencesOutput,
    description=(
        "List the live uses of a term in a content project's blocks, with their document, "
        "unit, locale and character positions, read from the block cache as of the last "
        "`groundnote context up`. For usage counts and standing use context_search."
    ),
    handler=run_occurrences,
    mcp=McpExposure("context_occurrences"),
    http=HttpExposure("GET", "/v1/context/occurrences"),
    cli=CliExposure(("terms", "occurrences"), arguments=("term",)),
    annotations=Annotations(read_only=True, idempotent=True),
)
