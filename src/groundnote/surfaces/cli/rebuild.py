"""`groundnote rebuild …`: projections deleted and rebuilt from their committed sources."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from groundnote import knowledge
from groundnote.domain.errors import GroundnoteError
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession

__all__ = ["rebuild_group"]


@click.group("rebuild", help="Delete a projection and build it again from its sources.")
def rebuild_group() -> None:
    pass


@rebuild_group.command("knowledge", help="Rebuild a scope's knowledge index from its checkout.")
@click.option("--scope", required=True, help="The scope whose index to rebuild.")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    help="The checkout to read (default: the one bound to the scope, else the current directory).",
)
@click.pass_obj
def rebuild_knowledge(session: CliSession, scope: str, repo: Path | None) -> None:
    runtime = session.runtime
    if repo is None and not runtime.home.scope_info(scope).repo:
        repo = Path.cwd()
    with PhaseBars() as bars:
        try:
            report = knowledge.rebuild(
                runtime.home, runtime.config.knowledge, scope, repo=repo, progress=bars
            )
        except GroundnoteError as exc:
            Console(stderr=True).print(f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}")
            raise SystemExit(1) from exc
    click.echo(
        f"indexed {report.records} records from {report.files} files and {report.commits} "
        f"commits; {report.problems} files with problems"
    )
