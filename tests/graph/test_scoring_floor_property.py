"""A scorer told the least score its caller keeps (`Key(..., floor=)`, what the duplicate check
asks for) answers exactly as one without a floor for every text that reaches the floor, and
keeps every other text below it: skipping the measurement of a text whose numbers or word
count differ never changes what the check sees (graph/scoring.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from groundnote.graph.normalize import normalize
from groundnote.graph.scoring import DUPLICATE_SCORE, Key

# Words that make every kind: numbers a digit apart, a title, a legal form, a surname and its
# misspelling, umlauts spelt both ways, initials, a word one letter longer.
WORDS = [
    "abteilung", "abteilug", "nord", "sued", "süd", "2027", "2021", "00610", "0061", "10",
    "dr", "gmbh", "gmbhh", "franke", "frank", "m", "mf", "müller", "mueller", "schmid",
    "schmidt", "projekt", "zugspitze", "phase", "3",
]  # fmt: skip
names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join).map(normalize)
floors = st.sampled_from([DUPLICATE_SCORE, 0.9, 0.95])


@settings(max_examples=600, deadline=None)
@given(key=names, texts=st.lists(names, min_size=1, max_size=3), floor=floors)
def test_a_floor_changes_no_score_that_reaches_it(key: str, texts: list[str], floor: float) -> None:
    if not key:
        return
    full = Key(key).best(tuple(texts))
    floored = Key(key, floor=floor).best(tuple(texts))
    if full[0] >= floor:
        assert floored == full
    else:
        assert floored[0] < floor
    # The bound resolve orders its work by stays a bound of what is kept.
    assert Key(key, floor=floor).bound(tuple(texts)) >= (full[0] if full[0] >= floor else 0.0)
