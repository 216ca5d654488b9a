"""`groundnote check` reports days stored before inputs were checked against the calendar."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from tests.conftest import Call


@pytest.mark.sqlite_only(
    "plants what an older SQLite version let through by recreating its triggers from "
    "sqlite_master; no PostgreSQL home was ever written by that version"
)
def test_check_reports_an_impossible_day_stored_before(
    runtime: Runtime, scope: str, home_path: Path, call: Call
) -> None:
    call(
        "core.store_source",
        scope=scope,
        source={"kind": "mail", "id": "mail:<a@example.com>", "subject": "Terms"},
    )
    call(
        "core.propose_rule",
        scope=scope,
        statement="Invoices are paid within 30 days.",
        evidence={"quote": "30 days", "refs": ["source/mail:<a@example.com>"]},
        valid_from="2026-02-01",
    )
    runner = CliRunner()
    ok = runner.invoke(cli, ["--home", str(home_path), "check"])
    assert ok.exit_code == 0, ok.output

    # What an older version let through: the pattern holds, the calendar does not. The rows
    # are append-only, so their triggers step aside for this one transaction.
    with runtime.home.scope_db(scope).write() as conn:
        for table, change in (
            ("rule", "valid_to = '9999-99-99'"),
            ("source", "sent_at = '2026-13-01T00:00:00Z'"),
        ):
            name = f"{table}_no_update"
            (sql,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = ?", (name,)
            ).fetchone()
            conn.execute(f"DROP TRIGGER {name}")
            conn.execute(f"UPDATE {table} SET {change}")
            conn.execute(sql)
    bad = runner.invoke(cli, ["--home", str(home_path), "check"])
    assert bad.exit_code == 1
    assert "rule sales-0001: valid_to '9999-99-99' is not on the calendar" in bad.output
    assert "source mail:<a@example.com>: sent_at '2026-13-01T00:00:00Z'" in bad.output
