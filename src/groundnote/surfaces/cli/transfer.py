"""`groundnote export scope|impulses` and `groundnote import scope|impulses`: the truth of a
scope or of an organisation's impulses to a JSON Lines file and back (docs/export.md).

The local operator's commands on the home's files, as backup is: a file streams in and out a
line at a time with a progress bar, where the `core.export`/`core.import` capabilities hold
the whole text in one answer. An import is one write transaction: a killed import leaves the
target as empty as it was, and a refused one names why.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import click
from rich.console import Console

from groundnote.core.transfer import EMPTY_SCOPE
from groundnote.domain.errors import GroundnoteError
from groundnote.impulses import EMPTY_ORG, IMPULSES_TRANSFER
from groundnote.runtime import SCOPE_TRANSFER
from groundnote.store import Database
from groundnote.store.transfer import Transfer, export_lines, import_lines, refuse_unless_empty
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession

__all__ = ["export_group", "import_impulses_command", "import_scope_command"]


def _fail(exc: GroundnoteError) -> None:
    Console(stderr=True, soft_wrap=True, highlight=False).print(
        f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}"
    )
    raise SystemExit(1) from exc


@contextmanager
def _output(target: str) -> Iterator[TextIO]:
    if target == "-":
        yield sys.stdout
        return
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        yield out


def _export(db: Database, transfer: Transfer, owner: str, target: str) -> int:
    written = 0
    with PhaseBars() as bars, db.read() as conn, _output(target) as out:
        conn.execute("BEGIN")  # one snapshot for every table
        try:
            for line in export_lines(conn, transfer, owner, progress=bars):
                out.write(line + "\n")
                written += 1
        finally:
            conn.execute("COMMIT")
    return written


def _import(
    db: Database, transfer: Transfer, owner: str, what: str, remedy: str, file: Path
) -> dict[str, int]:
    with PhaseBars() as bars, open(file, encoding="utf-8") as lines, db.write() as conn:
        refuse_unless_empty(conn, transfer, owner, what, remedy)
        counts = import_lines(conn, transfer, owner, lines, progress=bars)
    db.analyze()
    return counts


def _summary(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {table}" for table, n in counts.items() if n) or "nothing"


@click.group("export", help="Write a scope's or an organisation's truth to a JSON Lines file.")
def export_group() -> None:
    pass


@export_group.command(
    "scope",
    help="Export everything a scope holds (docs/export.md); import it with `groundnote import scope`.",
)
@click.option("--scope", required=True, help="The scope to export.")
@click.argument("file", default="-")
@click.pass_obj
def export_scope_command(session: CliSession, scope: str, file: str) -> None:
    try:
        db = session.runtime.home.scope_db(scope)
    except GroundnoteError as exc:
        _fail(exc)
    lines = _export(db, SCOPE_TRANSFER, scope, file)
    if file != "-":
        click.echo(f"exported {scope}: {lines} lines to {file}")


@export_group.command(
    "impulses",
    help="Export an organisation's concepts, edges, usage, sequences and impulses.",
)
@click.option("--org", required=True, help="The organisation whose impulses to export.")
@click.argument("file", default="-")
@click.pass_obj
def export_impulses_command(session: CliSession, org: str, file: str) -> None:
    lines = _export(session.runtime.home.instance, IMPULSES_TRANSFER, org, file)
    if file != "-":
        click.echo(f"exported the impulses of {org}: {lines} lines to {file}")


_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command("scope", help="Import a scope export into an empty scope (nothing is merged).")
@click.option("--scope", required=True, help="The empty scope to import into.")
@click.argument("file", type=_FILE)
@click.pass_obj
def import_scope_command(session: CliSession, scope: str, file: Path) -> None:
    try:
        db = session.runtime.home.scope_db(scope)
        counts = _import(db, SCOPE_TRANSFER, scope, f"The scope {scope}", EMPTY_SCOPE, file)
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(f"imported into {scope}: {_summary(counts)}")


@click.command("impulses", help="Import an impulses export into an organisation that has none yet.")
@click.option("--org", required=True, help="The organisation to import into.")
@click.argument("file", type=_FILE)
@click.pass_obj
def import_impulses_command(session: CliSession, org: str, file: Path) -> None:
    db = session.runtime.home.instance
    try:
        counts = _import(
            db, IMPULSES_TRANSFER, org, f"The organisation {org}'s impulses", EMPTY_ORG, file
        )
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(f"imported into the impulses of {org}: {_summary(counts)}")
