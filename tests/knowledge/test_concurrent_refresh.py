"""Two processes refreshing one scope's knowledge index at once (issue 12, item 4): each plans
outside the write lock, so one may plan against rows the other then replaces. The later
writer must end in the same rows as a refresh alone, never in an error or a mixture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundnote.knowledge.index import TABLES, refresh
from groundnote.runtime import Runtime
from groundnote.store import Database
from tests.knowledge.conftest import commit, write_record


def _rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    with db.read() as conn:
        return {
            table: sorted(
                tuple(r)
                for r in conn.execute(f"SELECT * FROM {table}")
                if table != "knowledge_meta" or r["key"] != "refreshed_at"
            )
            for table in TABLES
        }


def test_a_refresh_planned_against_rows_another_process_replaced_ends_the_same(
    runtime: Runtime, kb: str, repo: Path
) -> None:
    cfg = runtime.config.knowledge
    write_record(repo, "r1")
    commit(repo, "one")
    db = runtime.home.scope_db(kb)
    refresh(db, repo, cfg)
    write_record(repo, "r1", title="Edited")
    write_record(repo, "r2", status="verified")
    commit(repo, "two")

    # The other process: its own handle on the file, refreshing while this one plans.
    other = runtime.home.open_unmigrated(kb)
    interleaved = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "files" and not interleaved:
            interleaved.append(refresh(other, repo, cfg))

    refresh(db, repo, cfg, progress=progress)
    assert interleaved and interleaved[0].reread == 2
    after_both = _rows(db)
    other.close()
    refresh(db, repo, cfg, full=True)
    assert after_both == _rows(db)
