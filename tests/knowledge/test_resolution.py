"""Every reference kind resolves as seed 004 says, against a real git checkout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from tests.knowledge.conftest import KCall, commit, git, write, write_record


def _insert_rule(runtime: Runtime, scope: str) -> str:
    with runtime.home.scope_db(scope).write() as conn:
        conn.execute(
            "INSERT INTO rule (seq, id, statement, evidence_refs, valid_from, proposed_at, "
            "proposed_by, channel) VALUES (1, ?, 'Invoices go out monthly.', '[]', '2026-01-01', "
            "'2026-01-01T00:00:00.000Z', 'grant:agent', 'mcp')",
            (f"{scope}-0001",),
        )
    return f"{scope}-0001"


@pytest.fixture
def history(repo: Path) -> dict[str, str]:
    """A checkout with a deleted file, a pinned version, a ledger, ADRs, issues, sessions."""
    write(repo, "README.md", "# readme\n")
    write(repo, "docs/old.md", "old text\n")
    write(repo, "src/mod.py", "x = 1\n")
    first = commit(repo, "first")
    git(repo, "rm", "-q", "docs/old.md")
    write(repo, "src/mod.py", "x = 2\n")
    deleting = commit(repo, "delete old")
    write(repo, "tests/test_mod.py", "def test(): pass\n")
    write(repo, "docs/adr/0007-use-sqlite.md", "# ADR 7\n")
    write(repo, ".ai/repo/issues/42-slow-index.md", "# Issue 42\n")
    write(repo, ".ai/repo/sessions/S-2.json", "{}\n")
    write(
        repo,
        ".ai/repo/ledger/work.jsonl",
        '{"kind": "task", "id": "T-1"}\n{"kind": "decision", "id": "D-1"}\n'
        '{"kind": "session", "id": "S-1"}\n',
    )
    write_record(repo, "e2-related", "curated", status="verified")
    third = commit(repo, "third")
    return {"first": first, "deleting": deleting, "third": third}


def _by_reference(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["reference"]: r for r in [*out["derived_from"], *out["relations"]]}


def test_every_outcome_with_its_target(
    runtime: Runtime, kb: str, repo: Path, history: dict[str, str], kcall: KCall
) -> None:
    rule = _insert_rule(runtime, kb)
    first, deleting, third = history["first"], history["deleting"], history["third"]
    references = [
        "file:README.md",
        "test:tests/test_mod.py",
        f"rule:{rule}",
        "adr:7",
        "issue:42",
        "knowledge:e2-related",
        f"commit:{third[:8]}",
        "task:T-1",
        "decision:D-1",
        "session:S-1",
        "session:S-2",
        "file:docs/old.md",
        f"file:src/mod.py@{first[:10]}",
        "task:none",
        "decision:none",
        "file:nowhere.txt",
        "commit:deadbeef",
        "commit:not-hex",
        "entity:kb-e0001",
        "ticket:9",
        "test:src/mod.py",
        f"file:nowhere.txt@{first}",
    ]
    write_record(
        repo,
        "e1-0123456789ab",
        provenance={"origin": "extracted", "derived_from": references},
        relations=[{"type": "relates_to", "target": "file:README.md"}],
    )
    out = kcall("record", id="e1-0123456789ab", scope=kb)
    got = _by_reference(out)
    expect = {
        "file:README.md": ("object", "README.md"),
        "test:tests/test_mod.py": ("object", "tests/test_mod.py"),
        f"rule:{rule}": ("object", f"majordomus://rule/{rule}"),
        "adr:7": ("object", "majordomus://adr/0007-use-sqlite"),
        "issue:42": ("object", "majordomus://issue/42-slow-index"),
        "knowledge:e2-related": ("object", "majordomus://knowledge/e2-related"),
        f"commit:{third[:8]}": ("external", f"git:{third}"),
        "task:T-1": ("external", "ledger:.ai/repo/ledger/work.jsonl:1"),
        "decision:D-1": ("external", "ledger:.ai/repo/ledger/work.jsonl:2"),
        "session:S-1": ("external", "ledger:.ai/repo/ledger/work.jsonl:3"),
        "session:S-2": ("external", ".ai/repo/sessions/S-2.json"),
        "file:docs/old.md": ("historical", f"{first}:docs/old.md"),
        f"file:src/mod.py@{first[:10]}": ("historical", f"{first}:src/mod.py"),
    }
    for reference, (resolution, target) in expect.items():
        assert (got[reference]["resolution"], got[reference]["target"]) == (resolution, target), (
            reference
        )
        assert "reason" not in got[reference]
    reasons = {
        "task:none": "`none` is not a task",
        "decision:none": "`none` is not a decision",
        "file:nowhere.txt": "`nowhere.txt` is neither in the tree nor in git history",
        "commit:deadbeef": "no commit `deadbeef` in the repository's history",
        "commit:not-hex": "`not-hex` is not a commit id (4 to 40 hexadecimal digits)",
        "entity:kb-e0001": "no entity `kb-e0001` in this scope",
        "test:src/mod.py": "`src/mod.py` is not a test file (see knowledge.test_patterns)",
        f"file:nowhere.txt@{first}": f"commit `{first}` holds no file `nowhere.txt`",
    }
    for reference, reason in reasons.items():
        assert got[reference]["resolution"] == "missing", reference
        assert got[reference]["target"] is None
        assert got[reference]["reason"] == reason
    assert got["ticket:9"]["reason"].startswith("unknown prefix `ticket`")
    assert [r["reference"] for r in out["derived_from"]] == references  # the record's order
    assert out["relations"] == [
        {
            "relation_type": "relates_to",
            "reference": "file:README.md",
            "resolution": "object",
            "target": "README.md",
        }
    ]
    assert out["resolved"] is False
    assert deleting != first


def test_resolved_only_when_every_reference_resolves(
    repo: Path, kb: str, history: dict[str, str], kcall: KCall
) -> None:
    write_record(
        repo,
        "e3-clean",
        provenance={"origin": "authored", "derived_from": ["file:README.md", "task:T-1"]},
        relations=[{"type": "depends_on", "target": "file:docs/old.md"}],
    )
    out = kcall("record", id="e3-clean", scope=kb)
    assert out["resolved"] is True
    assert out["origin"] == "authored"
    write_record(
        repo,
        "e3-clean",
        provenance={"origin": "authored", "derived_from": ["file:README.md"]},
        relations=[{"type": "depends_on", "target": "decision:none"}],
    )
    assert kcall("record", id="e3-clean", scope=kb)["resolved"] is False


def test_a_file_deleted_in_a_later_commit_is_historical_at_its_last_holder(
    repo: Path, kb: str, kcall: KCall
) -> None:
    write(repo, "notes/a.md", "v1\n")
    commit(repo, "add")
    write(repo, "notes/a.md", "v2\n")
    holder = commit(repo, "edit")
    write_record(
        repo, "e4-cites", provenance={"origin": "authored", "derived_from": ["file:notes/a.md"]}
    )
    assert kcall("record", id="e4-cites", scope=kb)["derived_from"][0]["resolution"] == "object"
    git(repo, "rm", "-q", "notes/a.md")
    commit(repo, "delete")
    [ref] = kcall("record", id="e4-cites", scope=kb)["derived_from"]
    assert (ref["resolution"], ref["target"]) == ("historical", f"{holder}:notes/a.md")
    assert git(repo, "show", ref["target"]) == "v2"  # `git show` reads the target


def test_an_uncommitted_deletion_is_historical_at_head(repo: Path, kb: str, kcall: KCall) -> None:
    write(repo, "notes/b.md", "kept\n")
    head = commit(repo, "add")
    (repo / "notes/b.md").unlink()
    write_record(
        repo, "e5-cites", provenance={"origin": "authored", "derived_from": ["file:notes/b.md"]}
    )
    out = kcall("validate", scope=kb)
    assert out["dangling"] == []
    [ref] = kcall("record", id="e5-cites", scope=kb)["derived_from"]
    assert (ref["resolution"], ref["target"]) == ("historical", f"{head}:notes/b.md")


def test_seed_input_example_without_scope_and_unknown_keys(
    repo: Path, kb: str, kcall: KCall
) -> None:
    write_record(repo, "e1-0123456789ab")
    out = kcall("record", id="e1-0123456789ab")  # the seed's one-key input
    assert out["id"] == "e1-0123456789ab"
    assert out["uri"] == "majordomus://knowledge/e1-0123456789ab"
    assert out["path"] == ".ai/repo/knowledge/candidates/e1-0123456789ab.md"
    assert (out["source_class"], out["class"], out["status"]) == (
        "candidates",
        "convention",
        "candidate",
    )
    assert out["derived_from"] == [] and out["superseded_by"] is None and out["resolved"] is True
    assert out["content"] == (repo / out["path"]).read_text("utf-8")
    with pytest.raises(GroundnoteError) as exc:
        kcall("record", id="x", uri="y")
    body = exc.value.body()
    assert body["error"] == "validation-failed"
    assert body["problems"] == [{"key": "uri", "problem": "unknown key, not allowed"}]


def test_an_unknown_id_is_not_found(kb: str, kcall: KCall) -> None:
    for record_id in ("e404", "../../etc/passwd"):
        with pytest.raises(GroundnoteError) as exc:
            kcall("record", id=record_id, scope=kb)
        assert exc.value.body()["error"] == "not-found"


def test_a_malformed_record_is_refused_with_path_and_line(
    repo: Path, kb: str, kcall: KCall
) -> None:
    write(repo, ".ai/repo/knowledge/curated/e6-bad.md", "---\nid: e6-bad\nclass: [\n---\n")
    with pytest.raises(GroundnoteError) as exc:
        kcall("record", id="e6-bad", scope=kb)
    body = exc.value.body()
    assert body["error"] == "validation-failed"
    assert body["problems"][0]["path"] == ".ai/repo/knowledge/curated/e6-bad.md"
    assert body["problems"][0]["line"] >= 3


def test_a_scope_without_repository_is_refused_with_the_remedy(
    runtime: Runtime, reader: Any, kb: str
) -> None:
    from groundnote.auth import Right
    from tests.conftest import make_principal

    runtime.home.create_scope("bare")
    principal, _ = make_principal(runtime, "both", {"bare": Right.READ, kb: Right.READ}, ["mcp"])
    cap = runtime.registry.get("knowledge_base.record")
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(cap, {"id": "e1", "scope": "bare"}, principal=principal, channel="mcp")
    assert "--repo" in exc.value.body()["remedy"]
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(cap, {"id": "e1", "scope": "sales"}, principal=principal, channel="mcp")
    assert exc.value.body()["error"] == "scope-not-allowed"
