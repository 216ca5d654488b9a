"""`up` converges the store from the sources; the store is a projection that rebuilds."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from groundnote.context.blocks import parse_document
from groundnote.context.commit import commit
from groundnote.context.converge import plan, up
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.context.sources import StateRecord
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import ValidationFailed
from tests.context.project import write, write_project
from tests.context.snapshot import snapshot

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def _stage(project: Path, unit: str = "intro", decision: str = "needs_work") -> StateRecord:
    record = StateRecord.model_validate(
        {
            "document": "start",
            "unit": unit,
            "variant": "nb_NO",
            "decision": decision,
            "target_hash": "t-2",
            "source_basis": "b-2",
            "by": "person:ruth",
            "at": "2026-11-30T09:00:00Z",
        }
    )
    store = ProjectDB.open(project, CLOCK)
    try:
        store.working_set.stage(record)
    finally:
        store.close()
    return record


def test_plan_creates_nothing_and_names_every_change(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    changes, report = plan(project)
    assert not (project / ".groundnote").exists()
    assert {c.subsystem: c.add for c in changes} == {
        "blockcache": 2,
        "terms": 8,
        "memory": 1,
        "voice": 2,
        "workingset": 1,
    }
    assert report == []


def test_up_then_plan_is_quiet_and_up_is_idempotent(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    first = up(project, CLOCK)
    assert first.blocks == 5 and first.edges > 0
    before = snapshot(project)
    assert not any(c.any for c in plan(project)[0])
    again = up(project, CLOCK)
    assert not any(c.any for c in again.changes)
    assert snapshot(project) == before


def test_delete_store_and_up_rebuilds_the_same_answers(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    write(project, "blog/news.md", "# News\n\nOur email changed.\n")
    write(project, "guides/more/deep.md", "Sign in, then send an e-mail.\n")
    up(project, CLOCK)
    incremental = snapshot(project)
    store_path(project).unlink()
    up(project, CLOCK)
    assert snapshot(project) == incremental


def test_only_staged_state_is_lost_with_the_store(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    staged = _stage(project, unit="intro")
    up(project, CLOCK)  # a re-run keeps staged state: it is newer than any shard
    assert snapshot(project)["staged"] == [staged]
    store_path(project).unlink()
    up(project, CLOCK)
    assert snapshot(project)["staged"] == []  # the one thing lost


def test_commit_writes_the_shard_and_a_rebuild_keeps_it(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    staged = _stage(project, unit="intro")
    store = ProjectDB.open(project, CLOCK)
    try:
        assert commit(project, store) == [staged]
        assert store.working_set.records(staged=True) == []
    finally:
        store.close()
    shard = (project / "state" / "start.jsonl").read_text().splitlines()
    assert len(shard) == 2 and '"variant": "nb-NO"' in shard[1]
    store_path(project).unlink()
    up(project, CLOCK)
    assert staged in snapshot(project)["committed"]


def test_blesses_follows_the_block_and_a_gone_block_keeps_the_node(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    labels = [e.label for e in snapshot(project)["edges"]]
    assert labels.count("blesses") == 1
    write(project, "guides/start.md", "---\nkey: start\n---\n# Introduction\n")  # anchor gone
    up(project, CLOCK)
    after = snapshot(project)
    assert [e.label for e in after["edges"]].count("blesses") == 0
    assert any(n.label == "unit_state" for n in after["nodes"])


def test_empty_subsystem_reads_as_absent_store(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    store = ProjectDB.open(project, CLOCK)  # the file exists, every table empty
    try:
        assert store_path(project).is_file()
        assert store.store_missing()
        assert store.graph.all_nodes() == []
    finally:
        store.close()
    assert {c.subsystem: c.add for c in plan(project)[0]}["blockcache"] == 2
    up(project, CLOCK)
    store = ProjectDB.peek(project)
    assert store is not None
    try:
        assert not store.store_missing()
    finally:
        store.close()


def test_rows_under_a_non_canonical_locale_are_reported_once(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    # An older writer that did not normalise: simulate it with a raw row.
    conn = sqlite3.connect(store_path(project))
    conn.execute(
        "INSERT INTO block_texts (content_key, locale, text) VALUES ('k', 'nb_NO', 'x'), "
        "('k2', 'nb_NO', 'y')"
    )
    conn.commit()
    conn.close()
    _, report = plan(project)
    assert [(r.subsystem, r.locale, r.canonical) for r in report] == [
        ("blockcache", "nb_NO", "nb-NO")
    ]
    assert len(up(project, CLOCK).non_canonical) == 1


def test_renaming_the_project_rekeys_the_projection(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    recipe = (project / "groundnote-context.yaml").read_text()
    write(project, "groundnote-context.yaml", recipe.replace("docs-site", "handbook"))
    up(project, CLOCK)
    projects = {n.scope.project for n in snapshot(project)["nodes"] if n.scope.project}
    assert projects == {"handbook"}


def test_target_locale_folders_are_canonicalised(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    store = ProjectDB.peek(project)
    assert store is not None
    try:
        assert store.blocks.locales() == ["", "de-DE"]
        key = next(t.content_key for t in store.blocks.texts() if t.locale == "de-DE")
        assert store.blocks.text(key, "de_DE") == store.blocks.text(key, "de-DE") is not None
    finally:
        store.close()


def test_memory_and_voice_are_projected_and_the_binding_resolves(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    store = ProjectDB.peek(project)
    assert store is not None
    try:
        assert store.memory.recall("Sign in  with your account.", "nb-NO") == "Logg inn."
        assert store.memory.recall("Sign in with your account.", "de-DE") is None
        formal = store.voices.resolve("formal")
        assert formal is not None and formal.avoid == ["slang"]
        assert set(store.voices.profiles()) == {"default", "formal"}
    finally:
        store.close()
    write(project, "memory/ui.memory.json", '{"entries": []}')
    (project / "profiles" / "formal" / "voice.yaml").unlink()
    with pytest.raises(ValidationFailed) as exc:
        up(project, CLOCK)
    assert exc.value.body()["key"] == "voice.profile"


def test_a_run_interrupted_after_extraction_is_finished_by_the_next(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    write(project, "blog/news.md", "# News\n\nPlease sign in.\n")
    store = ProjectDB.open(project, CLOCK)
    try:  # extraction commits, then the run dies before the graph pass
        store.blocks.apply([parse_document(project, "blog/news.md", ("blog",))], ["blog/news.md"])
    finally:
        store.close()
    assert not any(c.any for c in plan(project)[0])  # the sources and the blocks agree
    up(project, CLOCK)
    finished = snapshot(project)
    store_path(project).unlink()
    up(project, CLOCK)
    assert snapshot(project) == finished
    uses = [e.props["term"] for e in finished["edges"] if e.label == "uses_term"]
    assert "login" not in uses and "sign in" in uses


def test_a_recipe_edit_moves_documents_between_collections(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    up(project, CLOCK)
    recipe = (project / "groundnote-context.yaml").read_text()
    write(project, "groundnote-context.yaml", recipe.replace('["blog/*.md"]', '["**/start.md"]'))
    result = up(project, CLOCK)
    assert {c.subsystem: c.change for c in result.changes}["blockcache"] == 1
    moved = snapshot(project)
    members = {
        (e.src, e.dst.rsplit(":", 1)[1]) for e in moved["edges"] if e.label == "in_collection"
    }
    assert {label for _, label in members} == {"guides", "blog"}
    assert not any(label == "blog" and "news" in src for src, label in members)
    store_path(project).unlink()
    up(project, CLOCK)
    assert snapshot(project) == moved


def test_two_documents_may_not_claim_one_key(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    write(project, "blog/copy.md", "---\nkey: start\n---\nA copy.\n")
    with pytest.raises(ValidationFailed) as exc:
        up(project, CLOCK)
    assert exc.value.body()["key"] == "key" and "guides/start.md" in exc.value.message
