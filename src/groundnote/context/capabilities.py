"""The context capabilities: on a project's directory `up`, `status`, `commit`, `publish`,
`bind` and `unbind` (command line only); `projects`, `search` and `occurrences` on every
surface. The models are in models.py, the handlers in handlers.py.

The directory commands take the content project's directory as `path`: the project store is
the project's own file (`.groundnote/work/store.db`), not a scope file. Agents reach a project
through the scope it is bound to.
"""

from __future__ import annotations

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.context import handlers
from groundnote.context.models import (
    BindInput,
    BindOutput,
    CommitInput,
    CommitOutput,
    OccurrencesInput,
    OccurrencesOutput,
    ProjectsInput,
    ProjectsOutput,
    PublishInput,
    PublishOutput,
    SearchInput,
    SearchOutput,
    StatusInput,
    StatusOutput,
    UnbindInput,
    UnbindOutput,
    UpInput,
    UpOutput,
)
from groundnote.context.projectarg import (
    bound_scope,
)

__all__ = [
    "BIND",
    "CAPABILITIES",
    "COMMIT",
    "OCCURRENCES",
    "PROJECTS",
    "PUBLISH",
    "SEARCH",
    "STATUS",
    "UNBIND",
    "UP",
]


# -- up ------------------------------------------------------------------------------------


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
    handler=handlers.up,
    cli=CliExposure(("context", "up"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
    policies=Policies(benchmark="required"),
)

# -- status --------------------------------------------------------------------------------


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
    handler=handlers.status,
    cli=CliExposure(("context", "status"), arguments=("path",)),
    annotations=Annotations(read_only=True, idempotent=True),
)

# -- commit --------------------------------------------------------------------------------


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
    handler=handlers.commit,
    cli=CliExposure(("context", "commit"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)


# -- publish -------------------------------------------------------------------------------


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
    handler=handlers.publish,
    cli=CliExposure(("context", "publish"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)

# -- bind, unbind, projects ----------------------------------------------------------------


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
    handler=handlers.bind,
    cli=CliExposure(("context", "bind"), arguments=("path",)),
    annotations=Annotations(read_only=False, idempotent=True),
)


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
    handler=handlers.unbind,
    cli=CliExposure(("context", "unbind"), arguments=("project",)),
    annotations=Annotations(read_only=False, destructive=True, idempotent=False),
)


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
    handler=handlers.projects,
    mcp=McpExposure("context_projects", "List content projects"),
    http=HttpExposure("GET", "/v1/context/projects"),
    cli=CliExposure(("context", "projects")),
    annotations=Annotations(read_only=True, idempotent=True),
)


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
    handler=handlers.search,
    mcp=McpExposure("context_search", "Look up how a term is used"),
    http=HttpExposure("GET", "/v1/context/search"),
    cli=CliExposure(("context", "search"), arguments=("term",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
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
    handler=handlers.occurrences,
    mcp=McpExposure("context_occurrences", "List where a term occurs"),
    http=HttpExposure("GET", "/v1/context/occurrences"),
    cli=CliExposure(("terms", "occurrences"), arguments=("term",)),
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
