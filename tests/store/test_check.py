"""`groundnote check` finds a damaged ledger and says which file and migration."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli


def test_check_reports_ok_then_a_changed_migration(
    runtime: Runtime, scope: str, home_path: Path
) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["--home", str(home_path), "check"])
    assert ok.exit_code == 0, ok.output
    home = runtime.home
    assert f"{home.scope_label(scope)}: ok" in ok.output
    assert f"{home.instance_label()}: ok" in ok.output

    with runtime.home.scope_db(scope).write() as conn:
        conn.execute("UPDATE migrations SET sha256 = 'x' WHERE subsystem = 'core'")
    bad = runner.invoke(cli, ["--home", str(home_path), "check"])
    assert bad.exit_code == 1
    assert "migration core/0001_core was applied from a different file" in bad.output
