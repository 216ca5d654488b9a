"""The trigram index is reconciled before a search; writes only mark texts stale."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from groundnote.context.blocks import parse_document
from groundnote.context.occurrence import find, positions
from groundnote.context.projectdb import ProjectDB, store_path
from groundnote.domain.clock import FixedClock
from tests.context.project import write, write_project

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def _stale(project: Path) -> tuple[int, int]:
    conn = sqlite3.connect(store_path(project))
    try:
        stale = conn.execute("SELECT count(*) FROM block_texts WHERE indexed = 0").fetchone()[0]
        retired = conn.execute("SELECT count(*) FROM block_texts_retired").fetchone()[0]
    finally:
        conn.close()
    return stale, retired


def test_writes_mark_stale_and_a_search_reconciles_exactly_that(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    store = ProjectDB.open(project, CLOCK)
    try:
        store.blocks.apply([parse_document(project, "blog/news.md", ("blog",))], [])
        assert _stale(project) == (2, 0)  # written, not indexed
        assert store.blocks.reconcile_index() == 2
        assert _stale(project) == (0, 0)
        assert [o.positions for o in find(store.blocks, "E-MAIL", "en", "en")] == [((4, 10),)]

        write(project, "blog/news.md", "# News\n\nOur mail changed.\n")
        store.blocks.apply([parse_document(project, "blog/news.md", ("blog",))], ["blog/news.md"])
        assert _stale(project) == (1, 1)  # the new text, and the old one to forget
        store.blocks.reconcile_index()
        assert find(store.blocks, "e-mail", "en", "en") == []
        assert len(find(store.blocks, "mail", "en", "en")) == 1
    finally:
        store.close()


def test_the_index_narrows_and_python_decides(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    write(project, "blog/news.md", "# News\n\nEmails and gmail are not the word email.\n")
    store = ProjectDB.open(project, CLOCK)
    try:
        store.blocks.apply([parse_document(project, "blog/news.md", ("blog",))], [])
        store.blocks.reconcile_index()
        assert len(store.blocks.candidates("email", "")) == 1  # the trigram match
        hits = find(store.blocks, "email", "en", "en")
        assert [len(h.positions) for h in hits] == [1]  # only the whole word
    finally:
        store.close()


def test_short_terms_are_scanned_and_targets_searched_by_locale(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    store = ProjectDB.open(project, CLOCK)
    try:
        store.blocks.apply([parse_document(project, "guides/start.md", ("guides",))], [])
        store.blocks.reconcile_index()
        assert len(find(store.blocks, "an", "de-DE", "en")) == 1  # "Melden Sie sich an."
        assert find(store.blocks, "E-Mail", "de-DE", "en")[0].locale == "de-DE"
    finally:
        store.close()


def test_positions_are_whole_words() -> None:
    assert positions("sign in", "Sign in, or sign-in, or signing in.") == ((0, 7),)
