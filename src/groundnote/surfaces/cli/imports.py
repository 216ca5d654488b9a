"""`groundnote import mail FILE…`: .eml files and mbox archives, each message through
`store_source` exactly as an agent's call would go, with a progress bar."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from groundnote.core import import_mail
from groundnote.core.capabilities import STORE_SOURCE
from groundnote.core.sources import MailIn, SourceOut
from groundnote.surfaces.cli.session import CliSession

__all__ = ["import_group"]


@click.group(
    "import", help="Import from files: mails, exports of scopes and impulses, other memories."
)
def import_group() -> None:
    pass


@import_group.command("mail", help="Import .eml files and mbox archives as mail sources.")
@click.option("--scope", required=True, help="The scope to file the mails in.")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.pass_obj
def import_mail_command(session: CliSession, scope: str, files: tuple[Path, ...]) -> None:
    runtime = session.runtime
    principal = session.principal()

    def store(mail: MailIn) -> SourceOut:
        raw = {"scope": scope, "source": mail.model_dump(mode="json")}
        out = runtime.invoke(STORE_SOURCE, raw, principal=principal, channel="cli")
        return SourceOut.model_validate(out.model_dump())

    with Progress(TextColumn("mails"), BarColumn(), MofNCompleteColumn()) as bar:
        task = bar.add_task("mails", total=None)
        report = import_mail(
            list(files),
            store,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    click.echo(
        f"stored {report.stored}, unchanged {report.unchanged}, problems {len(report.problems)}"
    )
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for problem in report.problems:
        where = problem.file + (f" message {problem.index}" if problem.index else "")
        err.print(f"[yellow]{where}[/yellow] {problem.message_id or ''}: {problem.problem}")
    if report.problems:
        raise SystemExit(1)
