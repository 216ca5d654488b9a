"""A cold `up` works in parts: documents in batches, the graph in ranges of blocks. Whatever
the part sizes and wherever a run is cut short, the next `up` leaves the store a rebuild
would, and a run reports each phase up to its total."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.context import converge, materialize
from groundnote.context.blockcache import BlockCache
from groundnote.context.blocks import content_key
from groundnote.context.converge import up
from groundnote.context.graphstore import GraphStore
from groundnote.context.materialize import project_scope
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.context.recipe import load_recipe
from groundnote.domain.clock import FixedClock
from tests.context.project import write, write_project
from tests.context.snapshot import snapshot
from tests.context.test_rebuild_property import _apply, edit

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
MORE = {
    "guides/a.md": "# A\n\nSend an email.\n\nSign in first.\n",
    "guides/x/b.md": "---\nkey: bee\n---\nThe login page.\n\nSend an email.\n",
    "blog/c.md": "An e-mail arrived.\n\n# Title\n",
}


@contextmanager
def _tiny_parts(scan_limit: int = materialize.SCAN_LIMIT) -> Iterator[None]:
    """One document per batch, one block per graph part: every boundary a part can have."""
    with ExitStack() as stack:
        stack.enter_context(patch.object(converge, "DOCUMENTS_PER_BATCH", 1))
        stack.enter_context(patch.object(materialize, "BLOCKS_PER_PART", 1))
        stack.enter_context(patch.object(materialize, "SCAN_LIMIT", scan_limit))
        yield


def _rebuilt(project: Path) -> dict[str, Any]:
    store_path(project).unlink()
    up(project, CLOCK)
    return snapshot(project)


def _project(root: Path) -> Path:
    project = write_project(root)
    for rel, text in MORE.items():
        write(project, rel, text)
    return project


@pytest.mark.parametrize("scan_limit", [0, 1_000])
def test_tiny_parts_leave_what_a_rebuild_leaves(tmp_path: Path, scan_limit: int) -> None:
    project = _project(tmp_path)
    with _tiny_parts(scan_limit):
        up(project, CLOCK)
        write(project, "blog/c.md", "Please sign in.\n\nSend an email.\n")  # a block moves
        (project / "guides/a.md").unlink()
        up(project, CLOCK)
    streamed = snapshot(project)
    assert _rebuilt(project) == streamed


def test_keys_moving_round_between_batches(tmp_path: Path) -> None:
    project = _project(tmp_path)
    up(project, CLOCK)
    # start → bee → guides/a.md → start: each claims a key a later batch still holds.
    write(project, "guides/start.md", "---\nkey: bee\n---\n# Intro {#intro}\n\nSign in.\n")
    write(project, "guides/x/b.md", "---\nkey: guides/a.md\n---\nThe login page.\n")
    write(project, "guides/a.md", "---\nkey: start\n---\nSend an email.\n")
    with _tiny_parts():
        up(project, CLOCK)
    moved = snapshot(project)
    assert {p.path: p.doc_key for p in moved["placements"]}["guides/a.md"] == "start"
    assert _rebuilt(project) == moved


def test_vocabulary_change_drops_uses_of_a_concept_no_longer_declared(tmp_path: Path) -> None:
    project = _project(tmp_path)
    with _tiny_parts():
        up(project, CLOCK)
        terms = (project / "terms.json").read_text()
        write(project, "terms.json", terms.replace('"sign-in"', '"signing-in"'))
        up(project, CLOCK)
    changed = snapshot(project)
    concepts = {e.dst for e in changed["edges"] if e.label == "uses_term"}
    assert concepts and not any(c.endswith(":sign-in") for c in concepts)
    assert _rebuilt(project) == changed


def test_a_full_pass_drops_the_block_with_the_greatest_key(tmp_path: Path) -> None:
    """The last range of blocks is open above: a block gone from the top goes too."""
    project = _project(tmp_path)
    up(project, CLOCK)
    keys = [p.content_key for p in snapshot(project)["placements"]]
    highest = max([*keys, content_key("Stays.")])
    top = next(t for i in range(1000) if content_key(t := f"Top {i}, an email.") > highest)
    write(project, "blog/d.md", f"{top}\n\nStays.\n")
    up(project, CLOCK)
    write(project, "blog/d.md", "Stays.\n")
    terms = (project / "terms.json").read_text()
    write(project, "terms.json", terms.replace('"login"', '"log-in"'))  # a full pass
    up(project, CLOCK)
    dropped = snapshot(project)
    assert not any(n.local == content_key(top) for n in dropped["nodes"])
    assert _rebuilt(project) == dropped


def test_a_renamed_project_is_dropped_in_parts(tmp_path: Path) -> None:
    project = _project(tmp_path)
    up(project, CLOCK)
    recipe = (project / "groundnote-context.yaml").read_text()
    write(project, "groundnote-context.yaml", recipe.replace("docs-site", "handbook"))
    with patch("groundnote.context.graphstore.store._DROP_BATCH", 1):
        up(project, CLOCK)
    renamed = snapshot(project)
    assert {n.scope.project for n in renamed["nodes"] if n.scope.project} == {"handbook"}
    assert _rebuilt(project) == renamed


class _Crash(Exception):
    pass


def _crash_on(calls: int, original: Any) -> Any:
    """A stand-in for a writer method that dies on its `calls`-th call."""
    seen = 0

    def writer(self: object, *args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        if seen == calls:
            raise _Crash
        return original(self, *args, **kwargs)

    return writer


def _built_from(project: Path) -> str | None:
    store = ProjectDB.open(project, CLOCK)
    try:
        return store.graph.built_from(project_scope(load_recipe(project)))
    finally:
        store.close()


@pytest.mark.parametrize("calls", [1, 2, 4])
def test_a_graph_pass_cut_short_reads_as_unbuilt_and_the_next_finishes_it(
    tmp_path: Path, calls: int
) -> None:
    project = _project(tmp_path)
    up(project, CLOCK)
    terms = (project / "terms.json").read_text()
    write(project, "terms.json", terms.replace('"login"', '"log-in"'))  # a full pass
    write(project, "blog/c.md", "Log in, sign in.\n")
    crash = _crash_on(calls, GraphStore.replace)
    with _tiny_parts(), patch.object(GraphStore, "replace", crash), pytest.raises(_Crash):
        up(project, CLOCK)
    assert _built_from(project) is None
    write(project, "guides/a.md", "Edited after the crash: sign in.\n")
    up(project, CLOCK)
    assert _built_from(project) is not None
    finished = snapshot(project)
    assert _rebuilt(project) == finished


def test_extraction_cut_short_is_finished_by_the_next_run(tmp_path: Path) -> None:
    project = _project(tmp_path)
    crash = _crash_on(3, BlockCache.apply)
    with _tiny_parts(), patch.object(BlockCache, "apply", crash), pytest.raises(_Crash):
        up(project, CLOCK)
    up(project, CLOCK)
    finished = snapshot(project)
    assert _rebuilt(project) == finished


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batches=st.lists(st.lists(edit, min_size=1, max_size=4), min_size=1, max_size=3),
    scan_limit=st.sampled_from([0, 1_000]),
)
def test_incremental_in_tiny_parts_equals_rebuild(
    batches: list[list[tuple[object, ...]]], scan_limit: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = write_project(Path(tmp))
        with _tiny_parts(scan_limit):
            up(project, CLOCK)
            for batch in batches:
                for change in batch:
                    _apply(project, change)
                up(project, CLOCK)
        streamed = snapshot(project)
        assert _rebuilt(project) == streamed


def _phases(calls: list[tuple[str, int, int]]) -> dict[str, list[tuple[int, int]]]:
    phases: dict[str, list[tuple[int, int]]] = {}
    for phase, done, total in calls:
        phases.setdefault(phase, []).append((done, total))
    return phases


def test_a_cold_run_reports_each_phase_up_to_its_total(tmp_path: Path) -> None:
    project = _project(tmp_path)
    calls: list[tuple[str, int, int]] = []
    with _tiny_parts():
        up(project, CLOCK, progress=lambda *call: calls.append(call))
    phases = _phases(calls)
    assert list(phases) == ["documents", "index", "terms", "blocks"]
    for reports in phases.values():
        dones = [done for done, _ in reports]
        assert dones == sorted(dones) and reports[0][0] == 0
        assert reports[-1][0] == reports[-1][1] > 0
    assert phases["documents"][-1] == (5, 5)
    assert len(phases["blocks"]) > 2  # one report per part, not one at the end


def test_an_incremental_run_reports_its_phases_too(tmp_path: Path) -> None:
    project = _project(tmp_path)
    up(project, CLOCK)
    write(project, "blog/c.md", "Changed.\n")
    calls: list[tuple[str, int, int]] = []
    up(project, CLOCK, progress=lambda *call: calls.append(call))
    phases = _phases(calls)
    assert list(phases) == ["documents", "terms", "blocks"]
    assert phases["documents"][-1] == (1, 1)
    assert all(reports[-1][0] == reports[-1][1] for reports in phases.values())
