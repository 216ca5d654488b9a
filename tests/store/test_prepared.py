"""PostgreSQL keeps a prepared statement per statement text and parameter types: an integer
goes as `integer` whatever its size (store/postgres.py), so an IN list of seqs small and large
is one prepared statement, where psycopg's own choice (`smallint` below 32,768) made a new type
list, planned anew, nearly every call."""

from __future__ import annotations

import pytest

from groundnote.runtime import Runtime
from groundnote.store.sql import in_list

pytestmark = pytest.mark.postgresql_only("prepared statements are PostgreSQL's")


def test_an_in_list_of_small_and_large_seqs_is_one_prepared_statement(
    runtime: Runtime, scope: str
) -> None:
    lists = [[5, 40_000, 7], [40_000, 5, 9], [70_000, 80_000, 3], [1, 2, 90_000]]
    with runtime.home.scope_db(scope).read() as conn:
        for seqs in lists * 4:
            marks, values = in_list(seqs)
            conn.execute(
                f"SELECT 'prepared-probe', seq FROM entity WHERE seq IN ({marks})", values
            ).fetchall()
        prepared = conn.execute(
            "SELECT parameter_types::text FROM pg_prepared_statements "
            "WHERE statement LIKE '%prepared-probe%'"
        ).fetchall()
    assert [row[0] for row in prepared] == ["{integer,integer,integer,integer}"]


def test_integers_past_the_integer_range_still_go_whole(runtime: Runtime, scope: str) -> None:
    with runtime.home.scope_db(scope).read() as conn:
        row = conn.execute(
            "SELECT ? + 1, ? * 2, substr('abcdef', ?)", (2**31, -(2**40), 3)
        ).fetchone()
    assert tuple(row) == (2**31 + 1, -(2**41), "cdef")
