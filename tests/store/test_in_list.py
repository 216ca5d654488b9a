"""`in_list` pads an IN list so that its statement repeats across sizes: the padded list must
answer every IN and NOT IN exactly as the list given, on the engine itself."""

from __future__ import annotations

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from groundnote.store.sql import in_list


@given(st.lists(st.integers(-5, 5), max_size=40), st.integers(-6, 6))
def test_padding_changes_no_answer(values: list[int], probe: int) -> None:
    marks, padded = in_list(values)
    conn = sqlite3.connect(":memory:")
    inside, outside = conn.execute(
        f"SELECT ? IN ({marks}), ? NOT IN ({marks})", [probe, *padded, probe, *padded]
    ).fetchone()
    assert (bool(inside), bool(outside)) == (probe in values, probe not in values)
    assert len(padded) in (0, 1) or len(padded) & (len(padded) - 1) == 0


def test_sizes_share_a_statement_and_long_lists_stay_as_given() -> None:
    assert in_list([]) == ("", [])
    assert in_list(range(5))[0] == in_list(range(8))[0]
    assert len(in_list(range(2000))[1]) == 2000
