"""`groundnote migrate --to postgresql://…`: the whole SQLite home into a PostgreSQL database,
with a bar per store unit, then the row counts of both sides and `check` on the target
(store/migrate.py; docs/migrate.md)."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import MIGRATE_SPEC
from groundnote.store.migrate import MigrateReport, migrate_home
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession, NoHome

__all__ = ["migrate_command"]


def _fail(message: str, remedy: str) -> None:
    Console(stderr=True, soft_wrap=True, highlight=False).print(
        f"[red]migrate[/red]: {message}\n{remedy}", markup=True
    )
    raise SystemExit(1)


def _counts(report: MigrateReport) -> Table:
    table = Table("store unit", "table", "SQLite rows", "PostgreSQL rows", "", box=None)
    for unit, tables in report.counts.items():
        for name, (before, after) in tables.items():
            if before or after:
                table.add_row(
                    unit, name, f"{before:,}", f"{after:,}", "" if before == after else "≠"
                )
    return table


@click.command(
    "migrate",
    help="Move this SQLite home (the instance and every scope) into an empty PostgreSQL "
    "database, verify it there, and say how to switch to it. Stop serve and mcp first.",
)
@click.option("--to", "url", required=True, help="The target database: postgresql://…")
@click.option(
    "--replace-unfinished",
    is_flag=True,
    help="Drop what an interrupted migrate left in the target, then migrate again.",
)
@click.pass_obj
def migrate_command(session: CliSession, url: str, replace_unfinished: bool) -> None:
    # imported here: every other command of a SQLite home runs without the driver
    from groundnote.store.postgres import is_postgres_url, redacted

    if not is_postgres_url(url):
        _fail(f"{url!r} is not a PostgreSQL URL.", "Name the target as postgresql://user@host/db.")
    if session.store_url() is not None:
        _fail(
            "This home already lives in PostgreSQL (database.url or GROUNDNOTE_DATABASE_URL "
            "names it); migrate moves a home of SQLite files.",
            "Unset GROUNDNOTE_DATABASE_URL (and database.url) to migrate the SQLite home.",
        )
    if not session.is_home():
        raise NoHome(session.home)
    try:
        with PhaseBars() as bars:
            report = migrate_home(
                session.runtime.home,
                url,
                MIGRATE_SPEC,
                progress=bars,
                replace_unfinished=replace_unfinished,
            )
    except GroundnoteError as exc:
        _fail(exc.message, exc.remedy)
    out = Console(soft_wrap=True, highlight=False)
    out.print(_counts(report))
    rate = report.rows / report.seconds if report.seconds else 0.0
    out.print(
        f"copied {report.rows:,} rows of {len(report.counts)} store units in "
        f"{report.seconds:.1f} s ({rate:,.0f} rows/s)"
    )
    if report.problems:
        for problem in report.problems:
            out.print(f"  {problem}")
        _fail(
            f"the verification found {len(report.problems)} problem(s); the target is marked "
            "unfinished and refuses to be opened.",
            "Report the problems above; the SQLite home is unchanged and still in use.",
        )
    out.print(
        f"verified: every table has as many rows in {redacted(url)} as in the SQLite home, and "
        "check finds nothing wrong.\nNext: set database.url in groundnote.json (or "
        "GROUNDNOTE_DATABASE_URL) to that URL and start serve again; keep the SQLite files as "
        "a backup until you no longer need them."
    )
