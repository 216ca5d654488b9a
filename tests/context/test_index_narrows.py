"""Property: the trigram index only narrows; searching through it finds exactly what a scan
of every text finds (no use is lost to the index's own case folding)."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.context.blocks import Block, Document, content_key
from groundnote.context.occurrence import find, scan
from groundnote.context.projectdb import ProjectDB
from groundnote.domain.clock import FixedClock

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
LETTERS = "aAeEsSßẞäÄöÖüÜıIiİçÇøØåÅéÉKkſΣσςǅǄǆﬁΩω-"
words = st.text(alphabet=LETTERS, min_size=1, max_size=6)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=6),
    data=st.data(),
)
def test_search_through_the_index_equals_a_scan(texts: list[str], data: st.DataObject) -> None:
    # Mostly a word that is there, in another case: where index and matcher could disagree.
    present = data.draw(st.sampled_from(" ".join(texts).split()))
    fold = data.draw(st.sampled_from([str.upper, str.lower, str.swapcase, str.title]))
    term = data.draw(st.one_of(st.just(fold(present)), words))
    with tempfile.TemporaryDirectory() as tmp:
        store = ProjectDB.open(Path(tmp), CLOCK)
        try:
            blocks = tuple(
                Block(f"u{i}", content_key(f"{i} {t}"), f"{i} {t}", ()) for i, t in enumerate(texts)
            )
            store.blocks.apply([Document("a.md", "a.md", (), "f", blocks)], [])
            store.blocks.reconcile_index()
            through_index = find(store.blocks, term, "en", "en")
            scanned = scan(store.blocks.texts(), term, "en", "en")
            assert through_index == scanned
        finally:
            store.close()
