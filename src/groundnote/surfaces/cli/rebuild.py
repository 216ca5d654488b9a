"""`groundnote rebuild …`: projections deleted and rebuilt from their committed sources."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from groundnote import core, graph, knowledge
from groundnote.domain.errors import GroundnoteError
from groundnote.embedding import embedder_for
from groundnote.store import Database
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession

__all__ = ["rebuild_group"]


@click.group("rebuild", help="Delete a projection and build it again from its sources.")
def rebuild_group() -> None:
    pass


def _scope_db(session: CliSession, scope: str) -> Database:
    try:
        return session.runtime.home.scope_db(scope)
    except GroundnoteError as exc:
        Console(stderr=True).print(f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}")
        raise SystemExit(1) from exc


@rebuild_group.command("closure", help="Rebuild a scope's entity_closure from the entity tree.")
@click.option("--scope", required=True, help="The scope whose closure to rebuild.")
@click.pass_obj
def rebuild_closure(session: CliSession, scope: str) -> None:
    rows = graph.rebuild_closure(_scope_db(session, scope))
    click.echo(f"entity_closure of {scope}: {rows} rows")


@rebuild_group.command(
    "counters",
    help="Recount a scope's counters (what it holds and what waits) from its rows.",
)
@click.option("--scope", required=True, help="The scope whose counters to rebuild.")
@click.pass_obj
def rebuild_counters(session: CliSession, scope: str) -> None:
    counters = graph.rebuild_counters(_scope_db(session, scope))
    click.echo(f"counters of {scope}: {counters} recounted")


@rebuild_group.command(
    "fts", help="Rebuild a scope's full-text indexes (entity names, rules, sources)."
)
@click.option("--scope", required=True, help="The scope whose indexes to rebuild.")
@click.pass_obj
def rebuild_fts(session: CliSession, scope: str) -> None:
    db = _scope_db(session, scope)
    entities = graph.rebuild_fts(db)
    with db.write() as conn:
        core.rebuild_fts(conn)
    click.echo(f"full-text indexes of {scope}: {entities} entities, rules and sources")


@rebuild_group.command(
    "vectors",
    help="Embed a scope's rules, sources and entity names again with the configured model "
    "(after a change of model).",
)
@click.option("--scope", required=True, help="The scope whose vectors to rebuild.")
@click.pass_obj
def rebuild_vectors(session: CliSession, scope: str) -> None:
    db = _scope_db(session, scope)
    try:
        embedder = embedder_for(session.runtime.config.search)
        with PhaseBars() as bars:
            texts = core.rebuild_vectors(db, embedder, bars)
            names = graph.rebuild_name_vectors(db, embedder, bars)
    except GroundnoteError as exc:
        Console(stderr=True).print(f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}")
        raise SystemExit(1) from exc
    click.echo(
        f"vectors of {scope}: {texts} rules and sources and {names} entity names embedded "
        f"with {embedder.model_id}"
    )


@rebuild_group.command(
    "index", help="Make every process rebuild a scope's resolve index from entity_fts."
)
@click.option("--scope", required=True, help="The scope whose resolve index to rebuild.")
@click.pass_obj
def rebuild_index(session: CliSession, scope: str) -> None:
    entities = graph.rebuild_index(_scope_db(session, scope))
    click.echo(f"resolve index of {scope}: {entities} entities; other processes rebuild theirs")


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
