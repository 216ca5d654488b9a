"""The context capabilities on a project's directory: `up`, `status`, `commit`, `publish`,
`bind` and `unbind` (command line only); `projects` lists the bindings on every surface; and
the registry's list of every context capability (`search` and `occurrences` live in search.py).

The directory commands take the content project's directory as `path`: the project store is
the project's own file (`.groundnote/work/store.db`), not a scope file. Agents reach a project
through the scope it is bound to.
"""

from __future__ import annotations

from pathlib import Path

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
from groundnote.context.bindings import bind, bindings, record_published, unbind
from groundnote.context.commit import commit
from groundnote.context.converge import Change, plan, up
from groundnote.context.materialize import project_scope
from groundnote.context.presence import has_table
from groundnote.context.projectarg import (
    PROJECT_PATH,
    bound_here,
    bound_scope,
    locale_warnings,
    populated,
    project_dir,
)
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.context.recipe import load_recipe
from groundnote.context.rollup import publish, rollup
from groundnote.context.search import OCCURRENCES, SEARCH
from groundnote.context.sources import STATE_DIR, shard_name
from groundnote.domain.guidance import Next, StrictModel
from groundnote.store.inspect import ledger_versions, table_counts

__all__ = ["BIND", "CAPABILITIES", "COMMIT", "PROJECTS", "PUBLISH", "STATUS", "UNBIND", "UP"]


class SubsystemChange(BaseModel):
    subsystem: str
    add: int
    change: int
    remove: int


def _change(c: Change) -> SubsystemChange:
    return SubsystemChange(subsystem=c.subsystem, add=c.add, change=c.change, remove=c.remove)


# -- up ------------------------------------------------------------------------------------


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


def run_up(ctx: Context, value: UpInput) -> UpOutput:
    folder = project_dir(value.path)
    recipe = load_recipe(folder)
    if value.plan:
        changes, report = plan(folder)
        return UpOutput(
            project=recipe.project,
            store=str(store_path(folder)),
            planned=True,
            changes=[_change(c) for c in changes],
            warnings=locale_warnings(report),
        )
    result = up(folder, ctx.clock, progress=ctx.progress)
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


UP: Capability[UpInput, UpOutput] = Capability(
    name="context.up",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.found_by("path", bound_scope),
    input=UpInput,
    output=UpOutput,
    description=(
        "Converge a content project's store from its committed sources: blocks, terms, unit "
        "state and the context graph. Only changed documents are parsed again. With plan, say "
        "what would change and create nothing. The store is a projection: delete it and run up "
        "again to rebuild it; only unit state staged since the last commit is lost."
    ),
    handler=run_up,
    cli=CliExposure(("context", "up"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
    policies=Policies(benchmark="required"),
)

# -- status --------------------------------------------------------------------------------


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


def run_status(ctx: Context, value: StatusInput) -> StatusOutput:
    folder = project_dir(value.path)
    recipe = load_recipe(folder)
    changes, report = plan(folder)
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


STATUS: Capability[StatusInput, StatusOutput] = Capability(
    name="context.status",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.found_by("path", bound_scope),
    input=StatusInput,
    output=StatusOutput,
    description=(
        "Report a content project's store: whether it holds blocks, each subsystem's schema "
        "version, rows per table, staged unit state, what `up` would change, and any rows keyed "
        "by a non-canonical locale. Creates nothing."
    ),
    handler=run_status,
    cli=CliExposure(("context", "status"), arguments=("path",)),
    annotations=Annotations(read_only=True, idempotent=True),
)

# -- commit --------------------------------------------------------------------------------


class CommitInput(StrictModel):
    path: str = PROJECT_PATH


class CommitOutput(BaseModel):
    committed: int = Field(description="Unit states written to their shards.")
    shards: list[str] = Field(description="The shard files written, relative to the project.")
    next: list[Next] = Field(default_factory=list, max_length=3)


def run_commit(ctx: Context, value: CommitInput) -> CommitOutput:
    folder = project_dir(value.path)
    store = ProjectDB.open(folder, ctx.clock)
    try:
        written = commit(folder, store)
    finally:
        store.close()
    shards = sorted({f"{STATE_DIR}/{shard_name(r.document)}" for r in written})
    return CommitOutput(committed=len(written), shards=shards)


COMMIT: Capability[CommitInput, CommitOutput] = Capability(
    name="context.commit",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.found_by("path", bound_scope),
    input=CommitInput,
    output=CommitOutput,
    description=(
        "Write the unit state staged in the project store to the committed shards "
        "(state/<document>.jsonl), the one thing a deleted store.db would lose. Commit the "
        "shards with the content afterwards."
    ),
    handler=run_commit,
    cli=CliExposure(("context", "commit"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)


# -- publish -------------------------------------------------------------------------------


class PublishInput(StrictModel):
    path: str = PROJECT_PATH


class PublishOutput(BaseModel):
    project: str
    scope: str = Field(description="The scope the project is bound to; its readers see it.")
    nodes: int = Field(description="Nodes of the project now in the rollup.")
    edges: int = Field(description="Edges of the project now in the rollup.")
    next: list[Next] = Field(default_factory=list, max_length=3)


def run_publish(ctx: Context, value: PublishInput) -> PublishOutput:
    folder = project_dir(value.path)
    binding = bound_here(ctx, folder)
    scope = project_scope(load_recipe(folder))
    store = populated(folder)
    try:
        # Claimed before the copy: a graph scope another binding published stays untouched.
        record_published(ctx.home.instance, scope, binding, at=ctx.clock.instant())
        nodes, edges = publish(store.graph, scope, rollup(ctx.home.instance), ctx.progress)
    finally:
        store.close()
    return PublishOutput(
        project=binding.project,
        scope=binding.scope,
        nodes=nodes,
        edges=edges,
        next=[Next(tool="context_search", why="count a term across the published projects")],
    )


PUBLISH: Capability[PublishInput, PublishOutput] = Capability(
    name="context.publish",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.found_by("path", bound_scope),
    input=PublishInput,
    output=PublishOutput,
    description=(
        "Copy a bound content project's context graph into this home's rollup, replacing what "
        "the project published before, so questions such as which projects use a concept span "
        "every published project a reader's grant reaches. Run `groundnote context up` first."
    ),
    handler=run_publish,
    cli=CliExposure(("context", "publish"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)

# -- bind, unbind, projects ----------------------------------------------------------------


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


def _bound(scope: str, project: str, folder: Path) -> BoundProject:
    store = ProjectDB.peek(folder)
    present = store is not None and not store.store_missing()
    if store is not None:
        store.close()
    return BoundProject(scope=scope, project=project, path=str(folder), present=present)


def run_bind(ctx: Context, value: BindInput) -> BindOutput:
    folder = project_dir(value.path)
    name = value.project or load_recipe(folder).project
    binding = bind(
        ctx.home.instance, value.scope, name, folder, at=ctx.clock.instant(), by=ctx.actor
    )
    return BindOutput(
        bound=_bound(binding.scope, binding.project, binding.path),
        next=[Next(tool="context_search", why="agents of the scope can now search the project")],
    )


BIND: Capability[BindInput, BindOutput] = Capability(
    name="context.bind",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=BindInput,
    output=BindOutput,
    description=(
        "Bind a content project's directory to a scope, so that whoever may read the scope can "
        "search the project by the scope's name and never by a path. A directory is bound once; "
        "binding it again the same way changes nothing."
    ),
    handler=run_bind,
    cli=CliExposure(("context", "bind"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)


class UnbindInput(StrictModel):
    project: str = Field(description="The bound project's name, as `context projects` lists it.")
    scope: str = Field(description="The scope it is bound to.")


class UnbindOutput(BaseModel):
    unbound: str = Field(description="The directory no longer served.")
    unpublished: int = Field(description="Graph scopes of the project removed from the rollup.")
    next: list[Next] = Field(default_factory=list, max_length=3)


def run_unbind(ctx: Context, value: UnbindInput) -> UnbindOutput:
    binding, published = unbind(ctx.home.instance, value.scope, value.project)
    for scope in published:
        rollup(ctx.home.instance).replace_scope(scope, [], [])
    return UnbindOutput(unbound=str(binding.path), unpublished=len(published))


UNBIND: Capability[UnbindInput, UnbindOutput] = Capability(
    name="context.unbind",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=UnbindInput,
    output=UnbindOutput,
    description=(
        "Stop serving a content project through its scope and remove what it published from "
        "the rollup. The project's directory and its store are left as they are."
    ),
    handler=run_unbind,
    cli=CliExposure(("context", "unbind"), arguments=("project",)),
    annotations=Annotations(read_only=False, destructive=True, idempotent=False),
)


class ProjectsInput(StrictModel):
    scope: str | None = Field(
        None, description="Only this scope's projects; omitted: every scope your grant may read."
    )


class ProjectsOutput(BaseModel):
    projects: list[BoundProject]
    next: list[Next] = Field(default_factory=list, max_length=3)


def run_projects(ctx: Context, value: ProjectsInput) -> ProjectsOutput:
    found = [
        _bound(b.scope, b.project, b.path) for b in bindings(ctx.home.instance, list(ctx.scopes))
    ]
    steps = [Next(tool="context_search", why="how a term is used in one of them")]
    return ProjectsOutput(projects=found, next=steps if found else [])


PROJECTS: Capability[ProjectsInput, ProjectsOutput] = Capability(
    name="context.projects",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ProjectsInput,
    output=ProjectsOutput,
    description=(
        "List the content projects bound to the scopes your grant may read, with whether each "
        "store holds blocks. Name one by scope and project in context_search."
    ),
    handler=run_projects,
    mcp=McpExposure("context_projects"),
    http=HttpExposure("GET", "/v1/context/projects"),
    cli=CliExposure(("context", "projects")),
    annotations=Annotations(read_only=True, idempotent=True),
)

CAPABILITIES: list[Capability] = [  # type: ignore[type-arg]
    UP,
    STATUS,
    COMMIT,
    PUBLISH,
    BIND,
    UNBIND,
    PROJECTS,
    SEARCH,
    OCCURRENCES,
]
