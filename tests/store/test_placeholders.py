"""Subsystem SQL is written once with `?` or `:name`; on PostgreSQL a statement bound server-side
goes with PostgreSQL's own `$k` (store/postgres.py `numbered`), which psycopg sends without
parsing its text. What is quoted, commented or inside a `$$` body is never a placeholder."""

from __future__ import annotations

import pytest

from groundnote.runtime import Runtime
from groundnote.store.postgres import EMPTY_LIST, numbered, translate
from groundnote.store.sql import in_list


def test_positional_placeholders_are_numbered_in_order() -> None:
    sql = "SELECT a FROM t WHERE x = ? AND y IN (?, ?) AND z::text = '?' -- ?"
    assert numbered(sql) == (
        "SELECT a FROM t WHERE x = $1 AND y IN ($2, $3) AND z::text = '?' -- ?",
        (),
    )


def test_a_name_used_twice_is_one_number_and_the_names_come_in_number_order() -> None:
    sql = "SELECT :b, :a, :b, x::int FROM t WHERE s LIKE '%:c' AND $$:d$$ = :a /* :e */"
    assert numbered(sql) == (
        "SELECT $1, $2, $1, x::int FROM t WHERE s LIKE '%:c' AND $$:d$$ = $2 /* :e */",
        ("b", "a"),
    )


def test_an_empty_in_list_means_nothing_in_both_forms() -> None:
    assert numbered("SELECT 1 WHERE 2 IN ()")[0] == f"SELECT 1 WHERE 2 IN {EMPTY_LIST}"
    assert translate("SELECT 1 WHERE 2 IN ()") == f"SELECT 1 WHERE 2 IN {EMPTY_LIST}"


def test_a_percent_sign_is_doubled_only_for_psycopgs_own_placeholders() -> None:
    assert numbered("SELECT ? WHERE 'a' LIKE 'a%'")[0] == "SELECT $1 WHERE 'a' LIKE 'a%'"
    assert translate("SELECT ? WHERE 'a' LIKE 'a%'") == "SELECT %s WHERE 'a' LIKE 'a%%'"


def test_a_statement_mixing_both_kinds_is_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        numbered("SELECT ? , :a")


@pytest.mark.postgresql_only("the `$k` form is PostgreSQL's")
def test_a_page_sized_in_list_and_named_values_bind_on_the_server(
    runtime: Runtime, scope: str
) -> None:
    # 64 marks: past the 50 parameters below which psycopg caches its parse of a `%s` text
    seqs = [*range(1, 41), *range(100_000, 100_024)]
    marks, values = in_list(seqs)
    named = {f"s{i}": seq for i, seq in enumerate(values)} | {"low": 30, "word": "a%"}
    names = ",".join(f":s{i}" for i in range(len(values)))
    with runtime.home.scope_db(scope).read() as conn:
        for _ in range(6):  # prepared from the fifth run on: the same answer either way
            rows = conn.execute(
                "SELECT v, :word LIKE 'a%' FROM unnest(CAST(ARRAY[" + names + "] AS int[])) "
                "AS v WHERE v > :low AND v IN (" + names + ") ORDER BY v",
                named,
            ).fetchall()
            assert [tuple(r) for r in rows] == [
                (seq, True) for seq in sorted(set(values)) if seq > 30
            ]
        positional = conn.execute(
            f"SELECT v FROM (VALUES (1), (41), (100023), (7)) AS t (v) WHERE v IN ({marks}) "
            "ORDER BY v",
            values,
        )
        assert [row[0] for row in positional.fetchall()] == [1, 7, 100_023]
