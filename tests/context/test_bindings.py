"""Content projects bound to scopes: how a call names its project, and what it may not reach."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import LOCAL_OPERATOR
from groundnote.context import query
from groundnote.context import rollup as rollup_module
from groundnote.context.graphstore import GraphStore
from groundnote.context.projectdb import ProjectDB
from groundnote.context.rollup import rollup
from groundnote.context.vocabulary import Scope
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import INSTANCE_SUBSYSTEMS, Runtime, open_runtime
from groundnote.store import check_home
from tests.conftest import Call
from tests.context.project import write_project

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def _renamed(folder: Path, name: str) -> Path:
    project = write_project(folder)
    recipe = project / "groundnote-context.yaml"
    recipe.write_text(recipe.read_text().replace("docs-site", name))
    return project


@pytest.fixture
def two(call: Call, tmp_path: Path, scope: str) -> tuple[Path, Path]:
    """Two projects bound to the agent's scope, both extracted."""
    pair = (_renamed(tmp_path / "a", "docs-site"), _renamed(tmp_path / "b", "handbook"))
    for folder in pair:
        call("context.up", channel="cli", path=str(folder))
        call("context.bind", channel="cli", path=str(folder), scope=scope)
    return pair


def test_binding_again_the_same_way_changes_nothing(call: Call, tmp_path: Path, scope: str) -> None:
    project = write_project(tmp_path / "site")
    first = call("context.bind", channel="cli", path=str(project), scope=scope)
    again = call("context.bind", channel="cli", path=str(project), scope=scope)
    assert first == again
    assert first["bound"] == {
        "scope": scope,
        "project": "docs-site",
        "path": str(project),
        "present": False,
    }


def test_a_directory_is_bound_once_and_a_name_once_per_scope(
    call: Call, tmp_path: Path, scope: str
) -> None:
    project = write_project(tmp_path / "site")
    call("context.bind", channel="cli", path=str(project), scope=scope)
    with pytest.raises(GroundnoteError) as exc:
        call("context.bind", channel="cli", path=str(project), scope=scope, project="other")
    assert exc.value.code == "conflict" and "context unbind docs-site" in exc.value.remedy
    twin = write_project(tmp_path / "twin")
    with pytest.raises(GroundnoteError) as exc:
        call("context.bind", channel="cli", path=str(twin), scope=scope)
    assert exc.value.code == "conflict"
    assert call("context.bind", channel="cli", path=str(twin), scope=scope, project="twin")


def test_binding_needs_a_directory_with_a_recipe(call: Call, tmp_path: Path, scope: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("context.bind", channel="cli", path=str(tmp_path), scope=scope)
    assert exc.value.code == "validation-failed" and exc.value.extras["key"] == "path"


def test_several_projects_in_a_scope_are_named_with_the_choices(
    call: Call, two: tuple[Path, Path], scope: str
) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", term="email")
    assert exc.value.code == "validation-failed"
    assert exc.value.extras["candidates"] == [f"{scope}/docs-site", f"{scope}/handbook"]
    out = call("context.search", scope=scope, project="handbook", term="email")
    assert [p["project"] for p in out["concepts"][0]["projects"]] == ["handbook"]
    listed = call("context.projects")
    assert [(p["project"], p["present"]) for p in listed["projects"]] == [
        ("docs-site", True),
        ("handbook", True),
    ]


def test_an_unbound_scope_says_how_to_bind(call: Call, scope: str) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=scope, term="email")
    assert exc.value.code == "not-found" and "context bind" in exc.value.remedy
    with pytest.raises(GroundnoteError) as exc:
        call("context.search", scope=scope, project="nothing", term="email")
    assert "named 'nothing'" in exc.value.message


def test_unbind_stops_serving_and_clears_the_rollup(
    call: Call, runtime: Runtime, two: tuple[Path, Path], scope: str
) -> None:
    for folder in two:
        call("context.publish", channel="cli", path=str(folder))
    graph = rollup(runtime.home.instance)
    assert query.projects_using_concept(graph, "email", Scope()) == ["docs-site", "handbook"]
    out = call("context.unbind", channel="cli", project="handbook", scope=scope)
    assert out["unbound"] == str(two[1]) and out["unpublished"] == 1
    assert query.projects_using_concept(graph, "email", Scope()) == ["docs-site"]
    assert [p["project"] for p in call("context.projects")["projects"]] == ["docs-site"]
    with pytest.raises(GroundnoteError) as exc:
        call("context.publish", channel="cli", path=str(two[1]))
    assert exc.value.code == "not-found" and "context bind" in exc.value.remedy
    assert (two[1] / ".groundnote" / "work" / "store.db").is_file()  # the store stays


def test_one_graph_scope_is_published_by_one_binding(
    call: Call, tmp_path: Path, scope: str
) -> None:
    first, twin = write_project(tmp_path / "one"), write_project(tmp_path / "twin")
    for folder, name in ((first, "docs-site"), (twin, "twin")):
        call("context.up", channel="cli", path=str(folder))
        call("context.bind", channel="cli", path=str(folder), scope=scope, project=name)
    call("context.publish", channel="cli", path=str(first))
    with pytest.raises(GroundnoteError) as exc:
        call("context.publish", channel="cli", path=str(twin))
    assert exc.value.code == "conflict" and "docs-site" in exc.value.message


def test_a_home_in_the_projects_own_folder_shares_work_without_a_clash(tmp_path: Path) -> None:
    project = write_project(tmp_path / "site")
    runtime = open_runtime(project / ".groundnote", clock=CLOCK, environ={})
    try:
        runtime.home.create_scope("site")
        for name, raw in (
            ("context.up", {"path": str(project)}),
            ("context.bind", {"path": str(project), "scope": "site"}),
            ("context.search", {"scope": "site", "term": "email"}),
        ):
            runtime.invoke(runtime.registry.get(name), raw, principal=LOCAL_OPERATOR, channel="cli")
        work = project / ".groundnote" / "work"
        assert sorted(p.name for p in work.iterdir()) == ["cache", "store.db"]
        report = check_home(runtime.home, INSTANCE_SUBSYSTEMS)
        assert all(problems == [] for problems in report.values()), report
        up = runtime.registry.get("context.up")
        again = runtime.invoke(up, {"path": str(project)}, principal=LOCAL_OPERATOR, channel="cli")
        assert again.model_dump()["blocks"] == 5
    finally:
        runtime.close()


def _graph_of(graph: GraphStore) -> tuple[set[Any], set[Any]]:
    return set(graph.all_nodes()), {(e.key, e.window, str(e.props)) for e in graph.all_edges()}


def test_publish_in_parts_copies_the_graph_and_drops_what_went(
    call: Call, runtime: Runtime, tmp_path: Path, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rollup_module, "BLOCKS_PER_PART", 2)
    project = write_project(tmp_path / "site")
    call("context.bind", channel="cli", path=str(project), scope=scope)
    for change in (None, "blog/news.md"):
        if change is not None:
            (project / change).unlink()  # its blocks must leave the rollup too
        call("context.up", channel="cli", path=str(project))
        out = call("context.publish", channel="cli", path=str(project))
        store = ProjectDB.peek(project)
        assert store is not None
        try:
            assert _graph_of(rollup(runtime.home.instance)) == _graph_of(store.graph)
            assert (out["nodes"], out["edges"]) == (
                len(store.graph.all_nodes()),
                len(store.graph.all_edges()),
            )
        finally:
            store.close()
