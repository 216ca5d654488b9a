"""`list_scopes` and `status`: which scopes a caller may use, and what each file holds."""

from __future__ import annotations

import sqlite3

from pydantic import BaseModel, Field

from groundnote import __version__
from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    Claim,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import ScopeName
from groundnote.store.database import Database
from groundnote.store.inspect import file_bytes, ledger_versions, table_counts

__all__ = ["LIST_SCOPES", "STATUS", "proposed_rule_count"]


class ListScopesInput(StrictModel):
    pass


class ScopeEntry(BaseModel):
    name: str
    right: str = Field(description="Your right on it: read, propose or decide.")
    approval_mode: str = Field(
        description="person: proposals wait for a person; auto: adopted by policy."
    )


class ListScopesOutput(BaseModel):
    scopes: list[ScopeEntry]
    next: list[Next] = Field(default_factory=list, max_length=3)


def list_scopes(ctx: Context, _: ListScopesInput) -> ListScopesOutput:
    assert ctx.principal is not None  # the scopes are the grant's: credentials were required
    entries = []
    for name in ctx.scopes:
        right = ctx.principal.right_on(name)
        assert right is not None
        entries.append(
            ScopeEntry(name=name, right=right.label, approval_mode=approval_mode(ctx, name))
        )
    steps = [Next(tool="status", why="see what a scope holds")] if entries else []
    return ListScopesOutput(scopes=entries, next=steps)


def approval_mode(ctx: Context, scope: str) -> str:
    """The scope's approval mode: groundnote.json overrides what `scope create` recorded."""
    override = ctx.config.scopes.get(scope)
    if override and override.approval:
        return override.approval
    return ctx.home.scope_info(scope).approval_mode


class StatusInput(StrictModel):
    scope: ScopeName | None = Field(
        None, description="One scope; omitted: every scope you may read."
    )


class SubsystemVersion(BaseModel):
    subsystem: str
    version: int = Field(description="The highest migration applied.")
    migrations: int = Field(description="How many migrations the ledger holds.")


class ScopeStatus(BaseModel):
    scope: str
    approval_mode: str
    pending: dict[str, int] = Field(
        description="What waits for a person on the approval page: rules, entities, links."
    )
    schema_versions: list[SubsystemVersion]
    rows: dict[str, int] = Field(description="Rows per table.")
    file_bytes: int


class StatusOutput(BaseModel):
    version: str = Field(description="The Groundnote version answering.")
    scopes: list[ScopeStatus]
    next: list[Next] = Field(default_factory=list, max_length=3)


def proposed_rule_count(conn: sqlite3.Connection) -> dict[str, int]:
    count: int = conn.execute(
        "SELECT count(*) FROM rule_state WHERE status = 'proposed'"
    ).fetchone()[0]
    return {"rules": count}


def _pending(ctx: Context, db: Database) -> dict[str, int]:
    counts: dict[str, int] = {}
    with db.read() as conn:
        for subsystem in ctx.home.scope_subsystems:
            if subsystem.pending is not None:
                counts.update(subsystem.pending(conn))
    return counts


def status(ctx: Context, value: StatusInput) -> StatusOutput:
    ctx.log.cross_scope = len(ctx.scopes) > 1
    out = []
    for name in ctx.scopes:
        db = ctx.scope_db(name)
        out.append(
            ScopeStatus(
                scope=name,
                approval_mode=approval_mode(ctx, name),
                pending=_pending(ctx, db),
                schema_versions=[
                    SubsystemVersion(subsystem=s, version=v, migrations=n)
                    for s, (v, n) in sorted(ledger_versions(db).items())
                ],
                rows=table_counts(db),
                file_bytes=file_bytes(db),
            )
        )
    return StatusOutput(version=__version__, scopes=out)


LIST_SCOPES: Capability[ListScopesInput, ListScopesOutput] = Capability(
    name="core.list_scopes",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.instance(),
    input=ListScopesInput,
    output=ListScopesOutput,
    description=(
        "List the scopes your grant may use, with your right on each and its approval mode. "
        "Call it first when you do not know which scope to name; every other tool needs one."
    ),
    handler=list_scopes,
    mcp=McpExposure("list_scopes"),
    http=HttpExposure("GET", "/v1/scopes"),
    cli=CliExposure(("scopes",)),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_scopes",
)

STATUS: Capability[StatusInput, StatusOutput] = Capability(
    name="core.status",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=StatusInput,
    output=StatusOutput,
    description=(
        "Report what a scope's store holds: the schema version of each subsystem, rows per "
        "table and the file size. Without a scope it reports every scope you may read."
    ),
    handler=status,
    mcp=McpExposure("status"),
    http=HttpExposure("GET", "/v1/status"),
    cli=CliExposure(("status",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
    log_operation="status",
    claims=(
        Claim(
            "served-alike-on-every-surface",
            "the same input gives the same content directly, over HTTP, MCP and the command line, "
            "and an unknown key is refused on each",
            "tests/surfaces/test_parity.py::test_status_is_the_same_on_every_surface",
        ),
        Claim(
            "scopes-never-revealed",
            "a foreign and a missing scope get byte-identical refusals",
            "tests/surfaces/test_parity.py::test_http_refusals_are_byte_identical",
        ),
    ),
)
