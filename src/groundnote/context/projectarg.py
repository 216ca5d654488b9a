"""What every context capability shares: how a call names its content project.

The command line names a directory (`groundnote context up [PATH]`); an agent names a scope
and, when the scope holds several, a bound project (`groundnote context bind PATH --scope S`),
never a directory, so no call over MCP or HTTP reaches a folder the operator did not bind.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from groundnote.capabilities import Context
from groundnote.context.bindings import Binding, binding_at, bindings
from groundnote.context.projectdb import NonCanonicalLocale, ProjectDB
from groundnote.context.recipe import RECIPE_FILE
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.store.home import Home

__all__ = [
    "AS_OF",
    "PROJECT_NAME",
    "PROJECT_PATH",
    "SCOPE",
    "bound_here",
    "bound_scope",
    "locale_warnings",
    "populated",
    "project_dir",
    "served",
]

AS_OF = "Counts are as of the last extraction (`groundnote context up`), not of the working tree."
PROJECT_PATH = Field(
    ".", description=f"The content project's directory, the one holding {RECIPE_FILE}."
)
SCOPE = Field(
    None,
    description="The scope the content project is bound to. Omitted: the one scope your grant "
    "may read that has content projects bound; on the command line, the project in the "
    "current directory comes first.",
)
PROJECT_NAME = Field(
    None,
    description="The bound project's name, as context_projects lists it. Omitted: the one "
    "project bound to the scope (refused, with the choices, when there are several).",
)


def project_dir(path: str) -> Path:
    folder = Path(path).expanduser().resolve()
    if not (folder / RECIPE_FILE).is_file():
        raise ValidationFailed(
            f"{folder} is not a content project: it has no {RECIPE_FILE}.",
            remedy=f"Pass the directory that holds {RECIPE_FILE}, or create the recipe there.",
            key="path",
        )
    return folder


def bound_scope(home: Home, path: str) -> str | None:
    """The scope a project directory is bound to, the tenancy of the directory commands; None
    for a directory bound to none (then only the command's right is asked, anywhere)."""
    binding = binding_at(home.instance, project_dir(path))
    return binding.scope if binding is not None else None


def _here(ctx: Context) -> Path | None:
    """The project the command line stands in, unless it is bound to a scope the call was not
    admitted on."""
    here = Path.cwd()
    if not (here / RECIPE_FILE).is_file():
        return None
    binding = binding_at(ctx.home.instance, here)
    return here if binding is None or binding.scope in ctx.scopes else None


def served(ctx: Context, scope: str | None, project: str | None) -> Path:
    """The directory of the project a call names by scope and project name, among the scopes
    the registry admitted the call on."""
    if scope is None and project is None and ctx.channel == "cli":
        here = _here(ctx)
        if here is not None:
            return here  # the command line reads the project it stands in
    found = [
        b for b in bindings(ctx.home.instance, list(ctx.scopes)) if project in (None, b.project)
    ]
    if len(found) == 1:
        return found[0].path
    where = f"scope {scope!r}" if scope is not None else "the scopes your grant may read"
    if not found:
        named = f"named {project!r} " if project is not None else ""
        raise NotFound(
            f"No content project {named}is bound to {where}.",
            remedy="An operator binds one with `groundnote context bind PATH --scope NAME`; "
            "context_projects lists what is bound.",
        )
    raise ValidationFailed(
        f"Name the project: {len(found)} content projects are bound to {where}.",
        remedy="Pass `scope` and `project`, one of the candidates (scope/project).",
        candidates=[f"{b.scope}/{b.project}" for b in found],
    )


def bound_here(ctx: Context, folder: Path) -> Binding:
    """The binding of a directory the command line names (the registry checked the right on
    its scope, the tenancy of `bound_scope`)."""
    binding = binding_at(ctx.home.instance, folder)
    if binding is None:
        raise NotFound(
            f"{folder} is bound to no scope.",
            remedy=f"Bind it first: `groundnote context bind {folder} --scope NAME`.",
        )
    return binding


def locale_warnings(report: list[NonCanonicalLocale]) -> list[str]:
    """The non-canonical locale report, once, with the rebuild named."""
    if not report:
        return []
    spellings = ", ".join(
        f"{r.subsystem}: {r.locale!r}" + (f" (canonical {r.canonical!r})" if r.canonical else "")
        for r in report
    )
    return [
        f"Rows keyed by a non-canonical locale that no lookup finds: {spellings}. Rebuild: run "
        "`groundnote context commit`, delete .groundnote/work/store.db, then "
        "`groundnote context up`."
    ]


def populated(folder: Path) -> ProjectDB:
    """The project's store when it holds blocks; else the error that says to run `up`."""
    store = ProjectDB.peek(folder)
    if store is None or store.store_missing():
        if store is not None:
            store.close()
        raise NotFound(
            "The project store holds no blocks yet.",
            remedy=f"Run `groundnote context up {folder}` first, then ask again.",
        )
    return store
