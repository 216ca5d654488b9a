"""The `groundnote` command: admin commands plus one command per capability."""

from __future__ import annotations

from pathlib import Path

import click

from groundnote import __version__
from groundnote.config import ConfigError
from groundnote.runtime import build_registry
from groundnote.store import MigrationChecksumMismatch, MissingTwin
from groundnote.surfaces.cli.admin import (
    check_command,
    docs_command,
    grant_group,
    person_group,
    scope_group,
)
from groundnote.surfaces.cli.backup import backup_command, restore_command
from groundnote.surfaces.cli.capability_commands import add_capability_commands
from groundnote.surfaces.cli.imports import import_group
from groundnote.surfaces.cli.migrate import migrate_command
from groundnote.surfaces.cli.peer_import import basic_memory_command, memory_jsonl_command
from groundnote.surfaces.cli.rebuild import rebuild_group
from groundnote.surfaces.cli.serve import mcp_command, serve_command
from groundnote.surfaces.cli.session import CliSession
from groundnote.surfaces.cli.transfer import (
    export_group,
    import_impulses_command,
    import_scope_command,
)

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="groundnote")
@click.option(
    "--home",
    envvar="GROUNDNOTE_HOME",
    default=".groundnote",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The home (or GROUNDNOTE_HOME).",
)
@click.option(
    "--database-url",
    envvar="GROUNDNOTE_DATABASE_URL",
    default=None,
    help="Keep the store in this PostgreSQL database (postgresql://…; or "
    "GROUNDNOTE_DATABASE_URL, or database.url in groundnote.json); default: SQLite files in "
    "the home.",
)
@click.option(
    "--token",
    envvar="GROUNDNOTE_TOKEN",
    default=None,
    help="Act with this grant's rights (or GROUNDNOTE_TOKEN); default: the local operator.",
)
@click.pass_context
def cli(ctx: click.Context, home: Path, database_url: str | None, token: str | None) -> None:
    """Groundnote: the knowledge store that AI agents write to and people can trust."""
    session = CliSession(home=home, token=token, database_url=database_url)
    ctx.obj = session
    ctx.call_on_close(session.close)


for command in (
    serve_command,
    mcp_command,
    scope_group,
    grant_group,
    person_group,
    rebuild_group,
    import_group,
    export_group,
    check_command,
    backup_command,
    restore_command,
    migrate_command,
    docs_command,
):
    cli.add_command(command)
import_group.add_command(import_scope_command)
import_group.add_command(import_impulses_command)
import_group.add_command(memory_jsonl_command)
import_group.add_command(basic_memory_command)
add_capability_commands(cli, build_registry())


def main() -> None:
    try:
        cli(standalone_mode=True)
    except (ConfigError, MigrationChecksumMismatch, MissingTwin) as exc:
        click.echo(f"groundnote: {exc}", err=True)
        raise SystemExit(2) from exc
