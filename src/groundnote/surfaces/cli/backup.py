"""`groundnote backup DIR` and `groundnote restore DIR`: a home copied whole, and brought back."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from groundnote.domain.errors import GroundnoteError, ValidationFailed
from groundnote.runtime import INSTANCE_SUBSYSTEMS, open_runtime
from groundnote.store import backup_home, check_home, restore_home
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession, NoHome

__all__ = ["backup_command", "restore_command"]


def _fail(exc: GroundnoteError) -> None:
    Console(stderr=True, soft_wrap=True).print(
        f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}", markup=True, highlight=False
    )
    raise SystemExit(1) from exc


# The files are SQLite's; a home on PostgreSQL is backed up with the server's own tools.
ON_POSTGRESQL = ValidationFailed(
    "This home's store is a PostgreSQL database; backup and restore copy SQLite files.",
    remedy="Back it up with the server's tools, e.g. `pg_dump --schema=groundnote "
    "--schema='scope_*' --format=custom URL > groundnote.dump`, and restore with pg_restore.",
)


@click.command(
    "backup",
    help="Copy the home's truth (configuration, instance.db, every scope file) to a new "
    "directory, consistently while serve runs; complete or absent, never half-written.",
)
@click.argument("target", type=click.Path(path_type=Path))
@click.pass_obj
def backup_command(session: CliSession, target: Path) -> None:
    if session.store_url() is not None:
        _fail(ON_POSTGRESQL)
    if not session.is_home():
        raise NoHome(session.home)
    with PhaseBars() as bars:
        try:
            report = backup_home(session.home, target, progress=bars)
        except GroundnoteError as exc:
            _fail(exc)
    for old in report.removed_leftovers:
        click.echo(f"removed {old}, left by an interrupted backup (it was never complete)")
    total = sum(report.files.values())
    click.echo(
        f"backed up {len(report.files)} files ({total:,} bytes) to {report.target}; "
        f"its MANIFEST.json holds each file's sha256"
    )


@click.command(
    "restore",
    help="Bring a backup back into a new or empty home, then check it.",
)
@click.argument("backup", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--home",
    "home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The home to restore into (default: the one named before the command).",
)
@click.pass_obj
def restore_command(session: CliSession, backup: Path, home: Path | None) -> None:
    target = home if home is not None else session.home
    if session.store_url() is not None:
        _fail(ON_POSTGRESQL)
    try:
        names = restore_home(backup, target)
    except GroundnoteError as exc:
        _fail(exc)
    click.echo(f"restored {len(names)} files into {target}")
    runtime = open_runtime(target)
    try:
        report = check_home(runtime.home, INSTANCE_SUBSYSTEMS)
    finally:
        runtime.close()
    problems = [f"{name}: {p}" for name, found in report.items() for p in found]
    for problem in problems:
        click.echo(f"  {problem}")
    if problems:
        click.echo(f"check found {len(problems)} problem(s) in the restored home")
        raise SystemExit(1)
    click.echo("check: every file ok")
