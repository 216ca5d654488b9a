"""On Citus a migration script runs statement by statement (store/citus.py): the split must
cut at every top-level `;` and nowhere inside quotes, comments or `$tag$` bodies. Runs on every
backend: it is a pure function over the committed PostgreSQL twins."""

from __future__ import annotations

from pathlib import Path

from groundnote.store.citus import statements

ROOT = Path(__file__).resolve().parents[2]


def test_semicolons_inside_quotes_comments_and_bodies_do_not_split() -> None:
    script = """-- a comment; with a semicolon
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'append-only; really'; END $$;
SELECT 'it''s; one', "odd;name" FROM t; /* block; comment */
CREATE FUNCTION g() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
-- trailing comment only
"""
    assert list(statements(script)) == [
        "-- a comment; with a semicolon\nCREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql "
        "AS $$\nBEGIN RAISE EXCEPTION 'append-only; really'; END $$",
        "SELECT 'it''s; one', \"odd;name\" FROM t",
        "/* block; comment */\nCREATE FUNCTION g() RETURNS int AS $body$ SELECT 1; $body$ "
        "LANGUAGE sql",
    ]


def test_every_postgresql_twin_splits_into_whole_statements() -> None:
    twins = sorted((ROOT / "src" / "groundnote").rglob("migrations/postgresql/*.sql"))
    assert twins
    for twin in twins:
        parts = list(statements(twin.read_text("utf-8")))
        assert parts, twin
        for part in parts:
            # a body cut in two would leave an odd number of its tag
            assert part.count("$$") % 2 == 0, (twin, part[:80])
            assert not part.endswith(";"), (twin, part[:80])
