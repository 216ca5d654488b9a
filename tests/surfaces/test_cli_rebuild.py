"""A projection `check` finds drifting is mended by the `rebuild` command its remedy names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
from click.testing import CliRunner

from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from tests.conftest import raw_connection

_COMMAND = re.compile(r"`groundnote ([^`]+)`")


def _entities(runtime: Runtime, scope: str) -> None:
    """Three levels of a tree, made through the command line."""
    runner = CliRunner()
    home = str(runtime.home.path)
    parent: str | None = None
    for name in ("Vertrieb", "Vertrieb Nord", "Café Morgenrot"):
        args = ["--home", home, "entity", "create", "--scope", scope, "--type", "department"]
        args += ["--name", name, "--output", "json"]
        if parent is not None:
            args += ["--parent-id", parent]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        parent = json.loads(result.stdout)["entity"]["id"]


def test_drifted_closure_and_fts_are_found_and_mended(
    runtime: Runtime, scope: str, home_path: Path
) -> None:
    _entities(runtime, scope)
    runner = CliRunner()
    home = ["--home", str(home_path)]
    assert runner.invoke(cli, [*home, "check"]).exit_code == 0
    # Damage the projections in the file itself, as a bug or a hand edit would.
    conn = raw_connection(runtime, scope)
    conn.execute("DELETE FROM entity_closure WHERE depth = 2")
    # the deepest entity as an ancestor of the top one: a row no tree has
    conn.execute(
        "INSERT INTO entity_closure (ancestor_id, descendant_id, depth) "
        "SELECT max(id), min(id), 7 FROM entity"
    )
    conn.execute("UPDATE entity_fts SET name = 'falsch' WHERE rowid = 1")
    conn.close()

    bad = runner.invoke(cli, [*home, "check"])
    assert bad.exit_code == 1
    commands = _COMMAND.findall(bad.output)
    assert sorted(set(commands)) == [
        f"rebuild closure --scope {scope}",
        f"rebuild fts --scope {scope}",
    ], bad.output
    for command in sorted(set(commands)):
        mended = runner.invoke(cli, [*home, *command.split()])
        assert mended.exit_code == 0, mended.output
    clean = runner.invoke(cli, [*home, "check"])
    assert clean.exit_code == 0, clean.output


def test_rebuild_index_answers_as_before(runtime: Runtime, scope: str, home_path: Path) -> None:
    _entities(runtime, scope)
    result = CliRunner().invoke(
        cli, ["--home", str(home_path), "rebuild", "index", "--scope", scope]
    )
    assert result.exit_code == 0, result.output
    assert "3 entities" in result.output


def _commands_named_in_sources() -> set[str]:
    """Every `groundnote …` command a message in the source names, up to its first argument."""
    named: set[str] = set()
    root = Path(__file__).resolve().parents[2] / "src" / "groundnote"
    for path in root.rglob("*.py"):
        for text in _COMMAND.findall(path.read_text(encoding="utf-8")):
            words: list[str] = []
            for word in text.split():
                if word.startswith("-") or not re.fullmatch(r"[a-z_]+", word):
                    break
                words.append(word)
            if words:
                named.add(" ".join(words))
    return named


def test_every_command_a_message_names_exists() -> None:
    named = _commands_named_in_sources()
    assert "rebuild closure" in named and "rebuild fts" in named  # the remedies of check
    ctx = click.Context(cli)
    for text in sorted(named):
        command: click.Command = cli
        path: list[str] = []
        for word in text.split():
            if not isinstance(command, click.Group):
                break  # the rest are the command's arguments (`scope create NAME`)
            sub = command.get_command(ctx, word)
            assert sub is not None, f"`groundnote {text}` names no command ({word!r})"
            command, path = sub, [*path, word]
        shown = CliRunner().invoke(cli, [*path, "--help"])
        assert shown.exit_code == 0, shown.output


def test_drifted_counters_are_found_and_mended(
    runtime: Runtime, scope: str, home_path: Path
) -> None:
    _entities(runtime, scope)
    runner = CliRunner()
    home = ["--home", str(home_path)]
    assert runner.invoke(cli, [*home, "check"]).exit_code == 0
    conn = raw_connection(runtime, scope)
    conn.execute("UPDATE tally SET n = n + 5 WHERE name = 'entities:department'")
    conn.execute("DELETE FROM pending_item WHERE id = (SELECT min(id) FROM entity)")
    conn.execute("UPDATE log_tally SET n = n + 1")
    conn.close()

    bad = runner.invoke(cli, [*home, "check"])
    assert bad.exit_code == 1
    assert "counter entities:department says 8, the store holds 3" in bad.output, bad.output
    assert "pending_item lacks 1" in bad.output and "operation log's counts" in bad.output
    assert sorted(set(_COMMAND.findall(bad.output))) == [f"rebuild counters --scope {scope}"]
    mended = runner.invoke(cli, [*home, "rebuild", "counters", "--scope", scope])
    assert mended.exit_code == 0, mended.output
    clean = runner.invoke(cli, [*home, "check"])
    assert clean.exit_code == 0, clean.output
