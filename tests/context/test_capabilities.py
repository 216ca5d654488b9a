"""The context capabilities through the registry and the derived CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from groundnote.auth import LOCAL_OPERATOR, Principal
from groundnote.capabilities.docs import render_page
from groundnote.context import query
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.context.rollup import rollup
from groundnote.context.sources import StateRecord
from groundnote.context.vocabulary import Scope
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.main import cli
from tests.conftest import Call
from tests.context.project import write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "site")


@pytest.fixture
def bound(call: Call, project: Path, scope: str) -> str:
    """The project bound to the agent's scope; the scope's name."""
    call("context.bind", channel="cli", path=str(project), scope=scope)
    return scope


def test_up_plan_creates_nothing_then_up_converges(call: Call, project: Path) -> None:
    planned = call("context.up", channel="cli", path=str(project), plan=True)
    assert planned["planned"] is True and planned["blocks"] is None
    assert not store_path(project).exists()
    done = call("context.up", channel="cli", path=str(project))
    assert done["blocks"] == 5 and done["staged"] == 0
    assert {c["subsystem"]: c["add"] for c in done["changes"]}["blockcache"] == 2


def test_status_reports_presence_versions_and_pending(call: Call, project: Path) -> None:
    before = call("context.status", channel="cli", path=str(project))
    assert before["present"] is False and before["subsystems"] == []
    assert not store_path(project).exists()
    call("context.up", channel="cli", path=str(project))
    after = call("context.status", channel="cli", path=str(project))
    assert after["present"] is True and after["pending"] == []
    assert {s["subsystem"] for s in after["subsystems"]} == {
        "blockcache",
        "terms",
        "memory",
        "voice",
        "workingset",
        "graph",
    }
    assert after["rows"]["graph_nodes"] == 12


def _search(runtime: Runtime, agent: Principal, raw: dict[str, Any]) -> dict[str, Any]:
    # `channel` is an input field here, so the `call` fixture's own keyword cannot carry it.
    cap = runtime.registry.get("context.search")
    return runtime.invoke(cap, raw, principal=agent, channel="cli").model_dump(mode="json")


def test_search_reports_usage_status_and_as_of(
    call: Call, project: Path, bound: str, runtime: Runtime, agent: Principal
) -> None:
    call("context.up", channel="cli", path=str(project))
    before = _search(
        runtime,
        agent,
        {
            "scope": bound,
            "term": "E-Mail",
            "at": "2026-12-01",
            "market": "US",
            "profile": "formal",
            "channel": "web",
        },
    )
    [concept] = before["concepts"]
    assert concept["concept"] == "email"
    [usage] = concept["projects"]
    words = {(t["term"], t["locale"]): (t["count"], t["status"]) for t in usage["terms"]}
    assert words == {
        ("E-Mail", "de-DE"): (1, "preferred"),
        ("e-mail", "en"): (2, "admitted"),
        ("email", "en"): (2, "preferred"),
    }
    assert {c["collection"]: c["count"] for c in usage["collections"]} == {"blog": 1, "guides": 4}
    assert before["governed"] == ["guides"]
    passages = {(p["document"], p["term"]): p["text"] for p in concept["passages"]}
    assert passages[("guides/start.md", "E-Mail")] == "Schicken Sie uns eine E-Mail."
    assert "last extraction" in before["as_of"]
    after = call(
        "context.search",
        scope=bound,
        term="email",
        at="2027-02-01",
        market="US",
    )
    words = {t["term"]: t["status"] for t in after["concepts"][0]["projects"][0]["terms"]}
    assert words["e-mail"] == "deprecated"
    elsewhere = call(
        "context.search",
        scope=bound,
        term="email",
        at="2027-02-01",
        market="GB",
    )
    words = {t["term"]: t["status"] for t in elsewhere["concepts"][0]["projects"][0]["terms"]}
    assert words["e-mail"] == "unlisted"


def test_search_before_up_says_to_run_up(call: Call, bound: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=bound, term="email")
    assert exc.value.code == "not-found" and "context up" in exc.value.remedy


def test_search_for_an_unknown_term_and_a_half_coordinate(
    call: Call, project: Path, bound: str
) -> None:
    call("context.up", channel="cli", path=str(project))
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=bound, term="nothing")
    assert exc.value.code == "not-found"
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=bound, term="email", profile="formal")
    assert exc.value.code == "validation-failed"


def test_a_directory_without_recipe_is_refused(call: Call, tmp_path: Path) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("context.status", channel="cli", path=str(tmp_path))
    assert exc.value.code == "validation-failed" and "groundnote-context.yaml" in exc.value.message


def test_commit_writes_staged_state(call: Call, project: Path, runtime: Runtime) -> None:
    call("context.up", channel="cli", path=str(project))
    store = ProjectDB.open(project, runtime.home.clock)
    try:
        store.working_set.stage(
            StateRecord.model_validate(
                {
                    "document": "guides/other",
                    "unit": "u1",
                    "variant": "de-DE",
                    "decision": "rejected",
                    "target_hash": "t",
                    "source_basis": "b",
                    "by": "person:ruth",
                    "at": "2026-11-30T09:00:00Z",
                }
            )
        )
    finally:
        store.close()
    assert call("context.status", channel="cli", path=str(project))["staged"] == 1
    out = call("context.commit", channel="cli", path=str(project))
    assert out == {"committed": 1, "shards": ["state/guides%2Fother.jsonl"], "next": []}
    assert (project / "state" / "guides%2Fother.jsonl").is_file()


def test_context_commands_are_on_the_cli(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    assert runner.invoke(cli, [*home, "scope", "create", "sales"]).exit_code == 0
    result = runner.invoke(cli, [*home, "context", "up", str(project), "--output", "json"])
    assert result.exit_code == 0, result.output
    assert '"blocks": 5' in result.output
    result = runner.invoke(cli, [*home, "context", "bind", str(project), "--scope", "sales"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, [*home, "context", "search", "login", "--scope", "sales"])
    assert result.exit_code == 0, result.output
    assert "sign-in" in result.output
    # Standing in the project, the command line needs no scope.
    monkeypatch.chdir(project)
    result = runner.invoke(cli, [*home, "context", "search", "login", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert '"sign-in"' in result.output


def test_terms_occurrences_lists_live_uses_with_positions(
    call: Call, project: Path, bound: str
) -> None:
    call("context.up", channel="cli", path=str(project))
    out = call("context.occurrences", scope=bound, term="e-mail")
    assert [(o["document"], o["locale"], o["positions"]) for o in out["occurrences"]] == [
        ("blog/news.md", "en", [[4, 10]]),
        ("guides/start.md", "de-DE", [[22, 28]]),
        ("guides/start.md", "en", [[23, 29]]),
    ]
    only = call("context.occurrences", scope=bound, term="e-mail", locale="de_DE")
    assert [o["locale"] for o in only["occurrences"]] == ["de-DE"]


def test_terms_occurrences_takes_the_term_as_an_argument(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    home = str(tmp_path / "home")
    assert runner.invoke(cli, ["--home", home, "scope", "create", "sales"]).exit_code == 0
    assert runner.invoke(cli, ["--home", home, "context", "up", str(project)]).exit_code == 0
    monkeypatch.chdir(project)
    result = runner.invoke(
        cli, ["--home", home, "terms", "occurrences", "sign in", "--output", "json"]
    )
    assert result.exit_code == 0, result.output
    assert '"guides/start.md"' in result.output


def test_publish_copies_the_graph_into_the_home_rollup(
    call: Call, tmp_path: Path, runtime: Runtime, scope: str
) -> None:
    first = write_project(tmp_path / "one")
    second = write_project(tmp_path / "two")
    recipe = (second / "groundnote-context.yaml").read_text()
    (second / "groundnote-context.yaml").write_text(recipe.replace("docs-site", "handbook"))
    for project in (first, second):
        call("context.up", channel="cli", path=str(project))
        call("context.bind", channel="cli", path=str(project), scope=scope)
        out = call("context.publish", channel="cli", path=str(project))
        assert out["nodes"] == 12 and out["edges"] == 16 and out["scope"] == scope
    graph = rollup(runtime.home.instance)
    assert query.projects_using_concept(graph, "email", Scope()) == ["docs-site", "handbook"]
    assert len(query.blocks_with_content_key(graph, _shared_key(first), Scope())) == 2
    out = call("context.search", scope=scope, project="docs-site", term="email", rollup=True)
    [concept] = out["concepts"]
    assert [(p["project"], p["count"]) for p in concept["projects"]] == [
        ("docs-site", 5),
        ("handbook", 5),
    ]
    # Another project's passage costs its text, never its count.
    texts = {p["project"]: p["text"] for p in concept["passages"]}
    assert texts["docs-site"] is not None and texts.get("handbook") is None


def test_rollup_counts_only_what_the_grant_may_read(
    call: Call, tmp_path: Path, runtime: Runtime, bound: str, project: Path
) -> None:
    foreign = write_project(tmp_path / "foreign")
    recipe = (foreign / "groundnote-context.yaml").read_text()
    (foreign / "groundnote-context.yaml").write_text(recipe.replace("docs-site", "secret"))
    runtime.home.create_scope("other")
    for folder, scope in ((project, bound), (foreign, "other")):
        raw = {"path": str(folder)}
        for name in ("context.up", "context.bind", "context.publish"):
            cap = runtime.registry.get(name)
            given = {**raw, "scope": scope} if name == "context.bind" else raw
            runtime.invoke(cap, given, principal=LOCAL_OPERATOR, channel="cli")
    out = call("context.search", scope=bound, term="email", rollup=True)
    assert [p["project"] for p in out["concepts"][0]["projects"]] == ["docs-site"]
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope="other", term="email")
    assert exc.value.code == "scope-not-allowed"
    # The agent may not publish into a scope it cannot reach, even naming the directory.
    with pytest.raises(GroundnoteError) as exc:
        call("context.publish", channel="cli", path=str(foreign))
    assert exc.value.code == "scope-not-allowed"


def test_rollup_search_before_any_publish_says_what_to_do(
    call: Call, project: Path, bound: str
) -> None:
    call("context.up", channel="cli", path=str(project))
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=bound, term="email", rollup=True)
    assert exc.value.code == "not-found" and "context publish" in exc.value.remedy


def _shared_key(project: Path) -> str:
    store = ProjectDB.peek(project)
    assert store is not None
    try:
        return store.blocks.placements()[0].content_key
    finally:
        store.close()


def test_surfaces_derive_from_the_declarations(runtime: Runtime) -> None:
    # A directory is named on the command line only; agents name a bound project by its scope.
    for name in ("up", "status", "commit", "publish", "bind", "unbind"):
        cap = runtime.registry.get(f"context.{name}")
        page = render_page(cap, runtime.config)
        assert cap.summary in page
        assert cap.mcp is None and cap.http is None and cap.cli is not None
        assert cap.cli.arguments == (("project",) if name == "unbind" else ("path",))
    for name, tool in (
        ("search", "context_search"),
        ("occurrences", "context_occurrences"),
        ("projects", "context_projects"),
    ):
        cap = runtime.registry.get(f"context.{name}")
        assert runtime.registry.by_tool(tool) is cap and cap.http is not None
        assert "path" not in cap.input.model_fields and "scope" in cap.input.model_fields


def test_search_counts_in_a_project_that_names_its_workspace(
    call: Call, project: Path, bound: str
) -> None:
    recipe = project / "groundnote-context.yaml"
    recipe.write_text("workspace: acme\n" + recipe.read_text())
    call("context.up", channel="cli", path=str(project))
    out = call("context.search", scope=bound, term="email")
    [usage] = out["concepts"][0]["projects"]
    assert (usage["project"], usage["count"]) == ("docs-site", 5)
    assert out["concepts"][0]["passages"]


def test_up_on_the_cli_draws_its_phases_on_stderr_and_keeps_json_clean(
    tmp_path: Path, project: Path
) -> None:
    home = str(tmp_path / "home")
    assert CliRunner().invoke(cli, ["--home", home, "scope", "create", "sales"]).exit_code == 0
    result = CliRunner().invoke(
        cli, ["--home", home, "context", "up", str(project), "--output", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["blocks"] == 5
    for phase in ("documents", "blocks"):
        assert phase in result.stderr
