"""The index: rebuilt from files equals refreshed by hash; status, candidates and validate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundnote.knowledge import rebuild
from groundnote.knowledge.index import TABLES, refresh
from groundnote.runtime import Runtime
from tests.knowledge.conftest import ROOT, KCall, commit, git, write, write_record


def _dump(runtime: Runtime, scope: str) -> dict[str, list[tuple[Any, ...]]]:
    with runtime.home.scope_db(scope).read() as conn:
        out = {}
        for table in TABLES:
            rows = conn.execute(f"SELECT * FROM {table}").fetchall()
            out[table] = sorted(
                tuple(r) for r in rows if table != "knowledge_meta" or r["key"] != "refreshed_at"
            )
    return out


def _answers(kcall: KCall, scope: str, ids: list[str]) -> list[dict[str, Any]]:
    return [kcall("validate", scope=scope)] + [kcall("record", id=i, scope=scope) for i in ids]


def _refresh(runtime: Runtime, scope: str, repo: Path) -> Any:
    return refresh(runtime.home.scope_db(scope), repo, runtime.config.knowledge)


def test_rebuild_equals_incremental_refresh(
    runtime: Runtime, kb: str, repo: Path, kcall: KCall
) -> None:
    write(repo, "a.txt", "a\n")
    write_record(repo, "r1", provenance={"origin": "authored", "derived_from": ["file:a.txt"]})
    write_record(repo, "r2", "curated", status="verified")
    commit(repo, "one")
    _refresh(runtime, kb, repo)
    # Change everything a refresh must notice: edit, add, delete, malformed, commits, ledger.
    write_record(
        repo,
        "r1",
        title="Edited",
        provenance={"origin": "authored", "derived_from": ["file:a.txt"]},
    )
    write_record(repo, "r3", relations=[{"type": "supports", "target": "knowledge:r2"}])
    (repo / ROOT / "curated/r2.md").unlink()
    write(repo, f"{ROOT}/candidates/r4.md", "---\nid: r4\nclass: [\n---\n")
    write(repo, ".ai/repo/ledger/l.jsonl", '{"kind": "task", "id": "T-9"}\nnot json\n')
    git(repo, "rm", "-q", "a.txt")
    commit(repo, "two")
    report = _refresh(runtime, kb, repo)
    assert (report.reread, report.removed, report.git_reread) == (4, 1, True)
    incremental = _dump(runtime, kb)
    answers = _answers(kcall, kb, ["r1", "r3"])

    # Deleting the index tables and rebuilding gives the same rows and the same answers.
    with runtime.home.scope_db(kb).write() as conn:
        for table in TABLES:
            conn.execute(f"DELETE FROM {table}")
    steps: list[tuple[str, int, int]] = []
    rebuilt_report = rebuild(
        runtime.home, runtime.config.knowledge, kb, progress=lambda *a: steps.append(a)
    )
    assert _dump(runtime, kb) == incremental
    assert _answers(kcall, kb, ["r1", "r3"]) == answers
    assert rebuilt_report.records == report.records == 2
    assert {phase for phase, _, _ in steps} == {"files", "git", "write"}
    assert answers[0]["ok"] is False
    assert {(p["path"], p["line"]) for p in answers[0]["problems"]} == {
        (f"{ROOT}/candidates/r4.md", 4),
        (".ai/repo/ledger/l.jsonl", 2),
    }
    assert answers[1]["derived_from"][0]["resolution"] == "historical"
    assert answers[2]["relations"][0]["resolution"] == "missing"  # r2 is gone


def test_refresh_rereads_only_what_changed(runtime: Runtime, kb: str, repo: Path) -> None:
    for n in range(5):
        write_record(repo, f"r{n}")
    commit(repo, "five")
    first = _refresh(runtime, kb, repo)
    assert (first.records, first.reread, first.git_reread) == (5, 5, True)
    again = _refresh(runtime, kb, repo)
    assert (again.reread, again.removed, again.git_reread) == (0, 0, False)
    write_record(repo, "r2", title="Changed")
    (repo / ROOT / "candidates/r3.md").touch()  # same content: not re-read
    third = _refresh(runtime, kb, repo)
    assert (third.reread, third.git_reread) == (1, False)
    with runtime.home.scope_db(kb).read() as conn:
        title = conn.execute("SELECT title FROM knowledge_record WHERE id = 'r2'").fetchone()[0]
    assert title == "Changed"


def test_a_malformed_file_never_stops_the_index(
    runtime: Runtime, kb: str, repo: Path, kcall: KCall
) -> None:
    write_record(repo, "good")
    write(repo, f"{ROOT}/curated/bad.md", "no front matter\n")
    (repo / ROOT / "curated/latin1.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    out = kcall("validate", scope=kb)
    assert out["records"] == 1 and out["ok"] is False
    assert [(p["path"], p["line"]) for p in out["problems"]] == [
        (f"{ROOT}/curated/bad.md", 1),
        (f"{ROOT}/curated/latin1.md", 2),
    ]


def test_status_names_new_changed_and_gone(
    runtime: Runtime, kb: str, repo: Path, kcall: KCall
) -> None:
    write_record(repo, "a")
    write_record(repo, "b")
    head = commit(repo, "c")
    before = kcall("status", scope=kb)
    assert (before["indexed"], before["up_to_date"], before["new"]) == (
        False,
        False,
        [f"{ROOT}/candidates/a.md", f"{ROOT}/candidates/b.md"],
    )
    _refresh(runtime, kb, repo)
    clean = kcall("status", scope=kb)
    assert (clean["up_to_date"], clean["unchanged"], clean["head"], clean["head_indexed"]) == (
        True,
        2,
        head,
        head,
    )
    assert clean["next"] == []
    write_record(repo, "a", title="Edited")
    (repo / ROOT / "candidates/b.md").unlink()
    write_record(repo, "c")
    now = commit(repo, "d")
    out = kcall("status", scope=kb)
    assert out["changed"] == [f"{ROOT}/candidates/a.md"]
    assert out["new"] == [f"{ROOT}/candidates/c.md"]
    assert out["gone"] == [f"{ROOT}/candidates/b.md"]
    assert (out["up_to_date"], out["history_moved"], out["head"], out["head_indexed"]) == (
        False,
        True,
        now,
        head,
    )


def test_candidates_lists_only_records_awaiting_review(repo: Path, kb: str, kcall: KCall) -> None:
    write_record(repo, "old", date="2026-01-01")
    write_record(
        repo,
        "new",
        date="2026-05-01",
        provenance={"origin": "extracted", "derived_from": ["task:none", "file:x"]},
    )
    write_record(repo, "done", "curated", status="verified")
    commit(repo, "c")
    out = kcall("candidates", scope=kb)
    assert out["total"] == 2
    assert [(c["id"], c["resolved"], c["dangling"]) for c in out["candidates"]] == [
        ("new", False, 2),
        ("old", True, 0),
    ]
    assert out["candidates"][0]["class"] == "convention"
    assert [c["id"] for c in kcall("candidates", scope=kb, limit=1)["candidates"]] == ["new"]


def test_validate_finds_dangling_references_duplicates_and_superseded_by(
    repo: Path, kb: str, kcall: KCall
) -> None:
    write_record(repo, "dup")
    write_record(repo, "dup", "curated", status="verified")
    write_record(repo, "gone-by", status="superseded", superseded_by="nobody")
    write_record(
        repo,
        "refs",
        relations=[
            {"type": "contradicts", "target": "knowledge:dup"},
            {"type": "documents", "target": "adr:3"},
        ],
    )
    commit(repo, "c")
    out = kcall("validate", scope=kb)
    assert out["ok"] is False
    assert (out["records"], out["resolved"]) == (4, 3)
    assert [(d["id"], d["field"], d["reference"]) for d in out["dangling"]] == [
        ("gone-by", "superseded_by", "nobody"),
        ("refs", "relations", "adr:3"),
    ]
    assert out["problems"] == [
        {
            "path": f"{ROOT}/candidates/dup.md",
            "line": 2,
            "message": f"id 'dup' is also the record at {ROOT}/curated/dup.md; remove one of the two files",
        }
    ]
    assert kcall("record", id="dup", scope=kb)["source_class"] == "curated"


def test_validate_is_ok_for_a_clean_checkout(repo: Path, kb: str, kcall: KCall) -> None:
    write(repo, "README.md", "x\n")
    write_record(repo, "r", provenance={"origin": "authored", "derived_from": ["file:README.md"]})
    commit(repo, "c")
    out = kcall("validate", scope=kb)
    assert (out["ok"], out["records"], out["resolved"], out["next"]) == (True, 1, 1, [])


def test_record_reads_the_file_as_it_is_now(repo: Path, kb: str, kcall: KCall) -> None:
    write_record(repo, "r")
    commit(repo, "c")
    assert kcall("record", id="r", scope=kb)["title"] == "Assertion r"
    write_record(repo, "r", title="Edited after the index")
    write_record(repo, "fresh")
    assert kcall("record", id="r", scope=kb)["title"] == "Edited after the index"
    assert kcall("record", id="fresh", scope=kb)["id"] == "fresh"
