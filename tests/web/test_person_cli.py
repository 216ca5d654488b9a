"""`groundnote person add|link` and the local person's login link that `serve` prints."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from groundnote.runtime import Runtime
from groundnote.surfaces.cli.admin import approval_login_link
from groundnote.surfaces.cli.main import cli


def test_person_add_prints_a_login_link_that_signs_the_person_in(
    runtime: Runtime, web: TestClient, home_path: Path, scope: str
) -> None:
    runner = CliRunner()
    added = runner.invoke(
        cli, ["--home", str(home_path), "person", "add", "ruth", "--email", "ruth@example.org"]
    )
    assert added.exit_code == 0, added.output
    assert "added person:ruth <ruth@example.org>" in added.output
    link = added.stdout.strip().splitlines()[-1].split(": ", 1)[1]
    assert "serve has not run on this home yet" in added.stderr
    path = link.removeprefix("http://127.0.0.1:8765")
    assert web.get(path).status_code == 200
    assert "ruth@example.org" in web.get("/approval").text

    twice = runner.invoke(
        cli, ["--home", str(home_path), "person", "add", "ruth", "--email", "ruth@example.org"]
    )
    assert twice.exit_code == 1 and "exists already" in twice.output
    bad = runner.invoke(cli, ["--home", str(home_path), "person", "add", "eve", "--email", "eve"])
    assert bad.exit_code == 1 and "not an email address" in bad.output
    unknown = runner.invoke(cli, ["--home", str(home_path), "person", "link", "nobody"])
    assert unknown.exit_code == 1 and "person add" in unknown.output


def test_serve_links_the_local_person(runtime: Runtime, web: TestClient, scope: str) -> None:
    first = approval_login_link(runtime, "http://127.0.0.1:8765")
    second = approval_login_link(runtime, "http://127.0.0.1:8765")
    assert first != second  # a new one-time link at every start, for the same local person
    assert web.get(first.removeprefix("http://127.0.0.1:8765")).status_code == 200
    assert "local@localhost" in web.get("/approval").text
