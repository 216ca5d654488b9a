"""Admin commands that are not capabilities: scopes, grants, persons, checks, docs."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from groundnote import core, graph
from groundnote.auth import (
    LOCAL_OPERATOR,
    add_person,
    close_scopes,
    create_grant,
    issue_login_link,
    list_grants,
    list_persons,
    parse_scope_rights,
    revoke_grant,
)
from groundnote.capabilities.context import public_url
from groundnote.capabilities.docs import write_docs
from groundnote.config import Config
from groundnote.domain.errors import GroundnoteError, ValidationFailed
from groundnote.embedding import embedder_for
from groundnote.runtime import INSTANCE_SUBSYSTEMS, Runtime, build_registry
from groundnote.store import check_home
from groundnote.store.check import placement_lines
from groundnote.surfaces.cli.output import print_result
from groundnote.surfaces.cli.served import read_served
from groundnote.surfaces.cli.session import CliSession
from groundnote.surfaces.http.approval import approval_registry

__all__ = [
    "LOCAL_PERSON",
    "approval_login_link",
    "check_command",
    "docs_command",
    "grant_group",
    "person_group",
    "scope_group",
]

LOCAL_PERSON = "local"
LOCAL_PERSON_EMAIL = "local@localhost"


def _fail(exc: GroundnoteError) -> None:
    err = Console(stderr=True)
    err.print(f"[bold red]{exc.code}[/bold red]: {exc.message}", highlight=False)
    err.print(f"remedy: {exc.remedy}", highlight=False)
    raise SystemExit(1)


@click.group("scope", help="Create and list scopes (one store file each).")
def scope_group() -> None:
    pass


@scope_group.command("create")
@click.argument("name")
@click.option(
    "--approval",
    type=click.Choice(["person", "auto"]),
    default="person",
    show_default=True,
    help="person: proposals wait for a person; auto: a policy adopts them at once.",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    help="A git checkout bound to the scope (knowledge records).",
)
@click.pass_obj
def scope_create(session: CliSession, name: str, approval: str, repo: Path | None) -> None:
    session.creates_home = True  # the other way, besides serve, to make a home on purpose
    new_home = not session.is_home()
    try:
        info = session.runtime.home.create_scope(
            name, approval_mode=approval, repo=str(repo.resolve()) if repo else None
        )
    except GroundnoteError as exc:
        _fail(exc)
    if new_home:
        click.echo(f"created the home {session.home.resolve()}")
    click.echo(f"created scope {info.name} (approval: {info.approval_mode})")


@scope_group.command("list")
@click.pass_obj
def scope_list(session: CliSession) -> None:
    home = session.runtime.home
    rows = []
    for name in home.scope_names():
        info = home.scope_info(name)
        rows.append(
            {
                "scope": info.name,
                "approval": info.approval_mode,
                "repo": info.repo,
                "created": info.created_at,
            }
        )
    print_result({"scopes": rows}, "table", Console())


@click.group("grant", help="Grants: tokens with channels and per-scope rights.")
def grant_group() -> None:
    pass


@grant_group.command("create")
@click.argument("name")
@click.option(
    "--scope",
    "scopes",
    required=True,
    help="SCOPE:RIGHT[,SCOPE:RIGHT…], right = read|propose|decide; '*' for every scope.",
)
@click.option(
    "--channel", "channels", default="mcp,api", show_default=True, help="mcp, api and/or cli."
)
@click.option("--org", default="local", show_default=True)
@click.option("--expires", help="Expiry instant, e.g. 2027-01-01T00:00:00.000Z.")
@click.option(
    "--allow-missing-scopes",
    is_flag=True,
    help="Grant rights on scopes that do not exist yet (default: refused, as a typo).",
)
@click.option(
    "--output", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.pass_obj
def grant_create(
    session: CliSession,
    name: str,
    scopes: str,
    channels: str,
    org: str,
    expires: str | None,
    allow_missing_scopes: bool,
    fmt: str,
) -> None:
    runtime = session.runtime
    try:
        rights = parse_scope_rights(scopes)
        if not allow_missing_scopes:
            _refuse_missing_scopes(list(rights), runtime.home.scope_names())
        info, token = create_grant(
            runtime.home.instance,
            name,
            rights=rights,
            channels=[c.strip() for c in channels.split(",") if c.strip()],
            org=org,
            now=runtime.home.clock.instant(),
            expires_at=expires,
        )
    except GroundnoteError as exc:
        _fail(exc)
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "id": info.id,
                    "token": token,
                    "org": info.org,
                    "channels": info.channels,
                    "rights": info.rights,
                }
            )
        )
        return
    click.echo(f"created {info.id} (org {info.org}, channels {','.join(info.channels)})")
    click.echo(f"token (shown once, only its hash is kept): {token}")


def _refuse_missing_scopes(named: list[str], known: list[str]) -> None:
    missing = [s for s in named if s != "*" and s not in known]
    if not missing:
        return
    close = {m: close_scopes(LOCAL_OPERATOR, m, known) for m in missing}
    hints = "; ".join(f"{m}: did you mean {', '.join(c)}?" for m, c in close.items() if c)
    raise ValidationFailed(
        f"No scope named {', '.join(missing)} exists in this home"
        + (f" ({hints})" if hints else "")
        + ".",
        remedy=(
            "Correct the name (`groundnote scope list` shows the scopes), create the scope "
            "first with `groundnote scope create NAME`, or pass --allow-missing-scopes to "
            "grant rights on a scope you will create later."
        ),
    )


@grant_group.command("list")
@click.pass_obj
def grant_list(session: CliSession) -> None:
    rows = [
        {
            "grant": g.id,
            "rights": ",".join(f"{s}:{r}" for s, r in g.rights.items()),
            "channels": ",".join(g.channels),
            "org": g.org,
            "expires": g.expires_at,
            "revoked": g.revoked_at,
        }
        for g in list_grants(session.runtime.home.instance)
    ]
    print_result({"grants": rows}, "table", Console())


@grant_group.command("revoke")
@click.argument("name")
@click.pass_obj
def grant_revoke(session: CliSession, name: str) -> None:
    runtime = session.runtime
    try:
        info = revoke_grant(runtime.home.instance, name, runtime.home.clock.instant())
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(f"revoked {info.id}")


def _say_whether_serve_runs(session: CliSession) -> None:
    """A login link works only while serve runs at its address: say when it does not."""
    if session.runtime.config.public_url:
        return
    served = read_served(session.home)
    if served is None:
        click.echo(
            "note: serve has not run on this home yet; the link works once "
            "`groundnote serve` runs at that address.",
            err=True,
        )
    elif not served.running():
        click.echo(
            f"note: serve is not running now (it last ran at {served.url}); the link "
            "works once `groundnote serve` runs there again.",
            err=True,
        )


def login_url(runtime: Runtime, name: str, base: str | None = None) -> str:
    token = issue_login_link(runtime.home.instance, name, runtime.home.clock)
    return f"{base or public_url(runtime.config)}/approval/login?token={token}"


def approval_login_link(runtime: Runtime, base: str) -> str:
    """A one-time login link for the local person, who is created on first use."""
    if not any(p.id == f"person:{LOCAL_PERSON}" for p in list_persons(runtime.home.instance)):
        add_person(
            runtime.home.instance,
            LOCAL_PERSON,
            email=LOCAL_PERSON_EMAIL,
            org="local",
            now=runtime.home.clock.instant(),
        )
    return login_url(runtime, LOCAL_PERSON, base)


@click.group("person", help="Persons: the people who decide on the approval pages.")
def person_group() -> None:
    pass


@person_group.command("add")
@click.argument("name")
@click.option("--email", required=True, help="The person's email; recorded with each decision.")
@click.option("--org", default="local", show_default=True)
@click.pass_obj
def person_add(session: CliSession, name: str, email: str, org: str) -> None:
    runtime = session.runtime
    try:
        info = add_person(
            runtime.home.instance, name, email=email, org=org, now=runtime.home.clock.instant()
        )
        link = login_url(runtime, name)
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(f"added {info.id} <{info.email}>")
    click.echo(f"one-time login link (24 h): {link}")
    _say_whether_serve_runs(session)


@person_group.command("list")
@click.pass_obj
def person_list(session: CliSession) -> None:
    rows = [
        {"person": p.id, "email": p.email, "org": p.org, "created": p.created_at}
        for p in list_persons(session.runtime.home.instance)
    ]
    print_result({"persons": rows}, "table", Console())


@person_group.command("link", help="Print a new one-time login link for a person.")
@click.argument("name")
@click.pass_obj
def person_link(session: CliSession, name: str) -> None:
    try:
        link = login_url(session.runtime, name)
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(link)
    _say_whether_serve_runs(session)


@click.command(
    "docs", help="Write the reference pages (capabilities, errors, configuration) from the code."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("docs"),
    show_default=True,
)
def docs_command(out: Path) -> None:
    # Default configuration, so the pages are the same on every machine.
    capabilities = [*build_registry(), *approval_registry()]
    written = write_docs(capabilities, Config(), out)
    click.echo(f"wrote {len(written)} pages to {out}")


def _vector_problems(runtime: Runtime, report: dict[str, list[str]]) -> dict[str, list[str]]:
    """The vectors against the configured model, which only the configuration names."""
    try:
        embedder = embedder_for(runtime.config.search)
    except GroundnoteError as exc:
        return {"search": [f"{exc.message} {exc.remedy}"]}
    out = {}
    for scope in runtime.home.scope_names():
        key = f"scopes/{scope}.db"
        db = runtime.home.scope_db(scope)
        drift = core.vector_drift(db, embedder, scope)
        names = graph.name_vector_drift(db, embedder, scope)
        out[key] = [
            *report.get(key, []),
            *(f"core: {p}" for p in drift),
            *(f"graph: {p}" for p in names),
        ]
    return out


@click.command("check", help="Check every store file: integrity, migrations, projections.")
@click.pass_obj
def check_command(session: CliSession) -> None:
    runtime = session.runtime
    report = check_home(runtime.home, INSTANCE_SUBSYSTEMS)
    if runtime.config.search.semantic == "on":
        report.update(_vector_problems(runtime, report))
    failed = False
    for name, problems in report.items():
        if problems:
            failed = True
            click.echo(f"{name}: {len(problems)} problem(s)")
            for problem in problems:
                click.echo(f"  {problem}")
        else:
            click.echo(f"{name}: ok")
    for line in placement_lines(runtime.home):
        click.echo(line)
    if failed:
        raise SystemExit(1)
