"""One handler per context operation. The directory commands (up, status, commit, publish) take a
content project's directory; bind and unbind tie one to a scope; projects, search and
occurrences read what is bound to the scopes the registry admitted the call on (`ctx.scopes`)."""

from __future__ import annotations

from pathlib import Path

from groundnote.capabilities import Context
from groundnote.context import bindings as bound
from groundnote.context import commit as staged
from groundnote.context import converge, query
from groundnote.context import rollup as rollups
from groundnote.context.converge import Change
from groundnote.context.locales import SOURCE, is_canonical
from groundnote.context.materialize import project_scope
from groundnote.context.models import (
    BindInput,
    BindOutput,
    BoundProject,
    CollectionUse,
    CommitInput,
    CommitOutput,
    ConceptUse,
    OccurrenceOut,
    OccurrencesInput,
    OccurrencesOutput,
    Passage,
    ProjectsInput,
    ProjectsOutput,
    ProjectUse,
    PublishInput,
    PublishOutput,
    SearchInput,
    SearchOutput,
    StatusInput,
    StatusOutput,
    SubsystemChange,
    SubsystemStatus,
    TermUse,
    UnbindInput,
    UnbindOutput,
    UpInput,
    UpOutput,
)
from groundnote.context.occurrence import find
from groundnote.context.presence import has_table
from groundnote.context.projectarg import (
    AS_OF,
    bound_here,
    locale_warnings,
    populated,
    project_dir,
    served,
)
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.context.recipe import Recipe, load_recipe
from groundnote.context.sources import STATE_DIR, shard_name
from groundnote.context.vocabulary import Scope
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.domain.guidance import Next
from groundnote.store.inspect import ledger_versions, table_counts

__all__ = [
    "bind",
    "commit",
    "occurrences",
    "projects",
    "publish",
    "search",
    "status",
    "unbind",
    "up",
]


def _change(c: Change) -> SubsystemChange:
    return SubsystemChange(subsystem=c.subsystem, add=c.add, change=c.change, remove=c.remove)


def up(ctx: Context, value: UpInput) -> UpOutput:
    folder = project_dir(value.path)
    recipe = load_recipe(folder)
    if value.plan:
        changes, report = converge.plan(folder)
        return UpOutput(
            project=recipe.project,
            store=str(store_path(folder)),
            planned=True,
            changes=[_change(c) for c in changes],
            warnings=locale_warnings(report),
        )
    result = converge.up(folder, ctx.clock, progress=ctx.progress)
    return UpOutput(
        project=recipe.project,
        store=str(store_path(folder)),
        planned=False,
        changes=[_change(c) for c in result.changes],
        blocks=result.blocks,
        nodes=result.nodes,
        edges=result.edges,
        staged=result.staged,
        warnings=locale_warnings(result.non_canonical),
        next=[Next(tool="context_search", why="see how a term is used across the project")],
    )


def status(ctx: Context, value: StatusInput) -> StatusOutput:
    folder = project_dir(value.path)
    recipe = load_recipe(folder)
    changes, report = converge.plan(folder)
    store = ProjectDB.peek(folder)
    versions: dict[str, tuple[int, int]] = {}
    rows: dict[str, int] = {}
    staged = 0
    present = False
    if store is not None:
        try:
            versions = _versions(store)
            rows = table_counts(store.db)
            staged = len(store.working_set.records(staged=True))
            present = not store.store_missing()
        finally:
            store.close()
    return StatusOutput(
        project=recipe.project,
        store=str(store_path(folder)),
        present=present,
        subsystems=[
            SubsystemStatus(subsystem=s, version=v) for s, (v, _) in sorted(versions.items())
        ],
        rows=rows,
        staged=staged,
        pending=[_change(c) for c in changes if c.any],
        warnings=locale_warnings(report),
    )


def _versions(store: ProjectDB) -> dict[str, tuple[int, int]]:
    with store.db.read() as conn:
        known = has_table(conn, "migrations")
    return ledger_versions(store.db) if known else {}


def commit(ctx: Context, value: CommitInput) -> CommitOutput:
    folder = project_dir(value.path)
    store = ProjectDB.open(folder, ctx.clock)
    try:
        written = staged.commit(folder, store)
    finally:
        store.close()
    shards = sorted({f"{STATE_DIR}/{shard_name(r.document)}" for r in written})
    return CommitOutput(committed=len(written), shards=shards)


def publish(ctx: Context, value: PublishInput) -> PublishOutput:
    folder = project_dir(value.path)
    binding = bound_here(ctx, folder)
    scope = project_scope(load_recipe(folder))
    store = populated(folder)
    try:
        # Claimed before the copy: a graph scope another binding published stays untouched.
        bound.record_published(ctx.home.instance, scope, binding, at=ctx.clock.instant())
        nodes, edges = rollups.publish(
            store.graph, scope, rollups.rollup(ctx.home.instance), ctx.progress
        )
    finally:
        store.close()
    return PublishOutput(
        project=binding.project,
        scope=binding.scope,
        nodes=nodes,
        edges=edges,
        next=[Next(tool="context_search", why="count a term across the published projects")],
    )


def _bound(scope: str, project: str, folder: Path) -> BoundProject:
    store = ProjectDB.peek(folder)
    present = store is not None and not store.store_missing()
    if store is not None:
        store.close()
    return BoundProject(scope=scope, project=project, path=str(folder), present=present)


def bind(ctx: Context, value: BindInput) -> BindOutput:
    folder = project_dir(value.path)
    name = value.project or load_recipe(folder).project
    binding = bound.bind(
        ctx.home.instance, value.scope, name, folder, at=ctx.clock.instant(), by=ctx.actor
    )
    return BindOutput(
        bound=_bound(binding.scope, binding.project, binding.path),
        next=[Next(tool="context_search", why="agents of the scope can now search the project")],
    )


def unbind(ctx: Context, value: UnbindInput) -> UnbindOutput:
    binding, published = bound.unbind(ctx.home.instance, value.scope, value.project)
    for scope in published:
        rollups.rollup(ctx.home.instance).replace_scope(scope, [], [])
    return UnbindOutput(unbound=str(binding.path), unpublished=len(published))


def projects(ctx: Context, value: ProjectsInput) -> ProjectsOutput:
    found = [
        _bound(b.scope, b.project, b.path)
        for b in bound.bindings(ctx.home.instance, list(ctx.scopes))
    ]
    steps = [Next(tool="context_search", why="how a term is used in one of them")]
    return ProjectsOutput(projects=found, next=steps if found else [])


def search(ctx: Context, value: SearchInput) -> SearchOutput:
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
    views = bound.published_scopes(ctx.home.instance, list(ctx.reachable_scopes()))
    if not views:
        raise NotFound(
            "No project of a scope your grant may read has been published to the rollup.",
            remedy="Run `groundnote context publish PATH` for each bound project first.",
        )
    return rollups.rollup(ctx.home.instance), views


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


def occurrences(ctx: Context, value: OccurrencesInput) -> OccurrencesOutput:
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
