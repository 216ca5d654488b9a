"""The SQL that cannot be written once for both backends, as fragments a statement embeds.

Subsystem code writes one statement and asks `dialect_of(conn)` for the parts that differ:
the rows of a JSON array and full text (whether a table exists and its columns are
`groundnote.store.sql`'s).
Full text on SQLite is FTS5 (bm25); on PostgreSQL a `tsvector` column with a GIN index under
no text-search configuration at all: the words are the ones the subsystem tokenised and
normalised itself, so both backends index exactly the same words, and a query is built from
a `TextQuery` of those words rather than from either engine's syntax. Scores are "lower is
better" on both (bm25 is negative; PostgreSQL's is the negated `ts_rank`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from groundnote.store.sql import Connection

__all__ = [
    "POSTGRESQL",
    "SQLITE",
    "Dialect",
    "Term",
    "TextQuery",
    "dialect_of",
]


@dataclass(frozen=True)
class Term:
    """One term of a text query: any of `words`, or with `prefix` every word starting with
    the one word given."""

    words: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True)
class TextQuery:
    """Every term (`every`) or any of them."""

    terms: tuple[Term, ...]
    every: bool = True


Tokenize = Callable[[str], list[str]]


class Dialect(Protocol):
    name: str

    def json_values(self, json_text: str) -> str:
        """A subquery yielding one column `value` (text) per element of a JSON array."""
        ...

    def text_query(self, query: TextQuery) -> str:
        """The parameter value a text-search statement takes for `query`."""
        ...

    def text_matches(self, table: str, param: str) -> str:
        """A subquery of the rowids of `table` whose text matches the query in `param`."""
        ...

    def text_ranked(self, table: str, restrict: str) -> str:
        """The best `:pool` of the newest `:window` matches of `:expr`, each `(seq, score,
        matches in the window)`, ordered by score (lower is better), then newer first."""
        ...

    def text_index(
        self,
        conn: Connection,
        table: str,
        columns: Sequence[str],
        rowid: int,
        texts: Sequence[str],
        tokenize: Tokenize,
    ) -> None: ...

    def text_clear(self, conn: Connection, table: str) -> None: ...

    def text_vocabulary(
        self, conn: Connection, table: str, columns: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        """Every (word, rowid, column) the index holds, sorted; for checks and tests."""
        ...

    def substrings_recall(
        self, table: str, column: str, pieces: Sequence[str]
    ) -> tuple[str, list[Any]]:
        """A subquery (and its parameters) of the rowids of a trigram table whose `column`
        contains every piece (each at least three characters)."""
        ...


def _fts5_term(term: Term) -> str:
    if term.prefix:
        return f'"{term.words[0]}"*'
    if len(term.words) == 1:
        return f'"{term.words[0]}"'
    return "(" + " OR ".join(f'"{w}"' for w in term.words) + ")"


class _SQLite:
    name = "sqlite"

    def json_values(self, json_text: str) -> str:
        return f"SELECT value FROM json_each({json_text})"

    def text_query(self, query: TextQuery) -> str:
        joint = " AND " if query.every else " OR "
        return joint.join(_fts5_term(t) for t in query.terms)

    def text_matches(self, table: str, param: str) -> str:
        return f"SELECT rowid FROM {table} WHERE {table} MATCH {param}"

    def text_ranked(self, table: str, restrict: str) -> str:
        return (
            f"SELECT seq, score, count(*) OVER () FROM (SELECT rowid AS seq, bm25({table}) AS "
            f"score FROM {table} WHERE {table} MATCH :expr{restrict} ORDER BY rowid DESC "
            "LIMIT :window) ORDER BY score, seq DESC LIMIT :pool"
        )

    def text_index(
        self,
        conn: Connection,
        table: str,
        columns: Sequence[str],
        rowid: int,
        texts: Sequence[str],
        tokenize: Tokenize,
    ) -> None:
        marks = ", ".join("?" for _ in columns)
        conn.execute(
            f"INSERT INTO {table} (rowid, {', '.join(columns)}) VALUES (?, {marks})",
            (rowid, *texts),
        )

    def text_clear(self, conn: Connection, table: str) -> None:
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")

    def text_vocabulary(
        self, conn: Connection, table: str, columns: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        conn.execute(
            f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, 'instance')"
        )
        try:
            rows = {(r[0], r[1], r[2]) for r in conn.execute(f"SELECT * FROM temp.v_{table}")}
        finally:
            conn.execute(f"DROP TABLE temp.v_{table}")
        return sorted(rows)

    def substrings_recall(
        self, table: str, column: str, pieces: Sequence[str]
    ) -> tuple[str, list[Any]]:
        match = " AND ".join(f"{column} : " + '"' + p.replace('"', '""') + '"' for p in pieces)
        return f"SELECT rowid FROM {table} WHERE {table} MATCH ?", [match]


# tsvector limits: a position above 16383 is stored as 16383, a lexeme keeps 256 positions,
# and a lexeme longer than 2047 bytes cannot be stored (PostgreSQL's own parser skips it too).
_MAX_POSITION = 16383
_MAX_POSITIONS = 256
_MAX_LEXEME_BYTES = 2046
_WEIGHTS = "ABCD"


def _lexeme(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_text(texts: Sequence[str], tokenize: Tokenize) -> str:
    """The tsvector literal of the columns' words: each column its weight (A, B, C, D),
    positions running on across columns so that a word's frequency counts as in FTS5."""
    positions: dict[str, list[str]] = {}
    at = 0
    for column, text in enumerate(texts):
        weight = _WEIGHTS[min(column, 3)]
        for word in tokenize(text):
            at += 1
            if len(word.encode()) > _MAX_LEXEME_BYTES:
                continue
            held = positions.setdefault(word, [])
            position = min(at, _MAX_POSITION)
            if len(held) < _MAX_POSITIONS and (not held or int(held[-1][:-1]) < position):
                held.append(f"{position}{weight}")
    return " ".join(f"{_lexeme(w)}:{','.join(p)}" for w, p in positions.items())


def _tsquery_term(term: Term) -> str:
    if term.prefix:
        return f"{_lexeme(term.words[0])}:*"
    if len(term.words) == 1:
        return _lexeme(term.words[0])
    return "(" + " | ".join(_lexeme(w) for w in term.words) + ")"


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class _PostgreSQL:
    name = "postgresql"

    def json_values(self, json_text: str) -> str:
        return f"SELECT value FROM json_array_elements_text(CAST({json_text} AS json)) AS j(value)"

    def text_query(self, query: TextQuery) -> str:
        joint = " & " if query.every else " | "
        return joint.join(_tsquery_term(t) for t in query.terms)

    def text_matches(self, table: str, param: str) -> str:
        return f"SELECT rowid FROM {table} WHERE doc @@ CAST({param} AS tsquery)"

    def text_ranked(self, table: str, restrict: str) -> str:
        # The window is chosen by rowid alone, and only its rows are ranked; every column
        # weighs the same, as in bm25's default; rank 1 divides by 1 + log(document length).
        return (
            "SELECT seq, -ts_rank('{1,1,1,1}', doc, CAST(:expr AS tsquery), 1) AS score, "
            f"count(*) OVER () FROM (SELECT rowid AS seq, doc FROM {table} "
            f"WHERE doc @@ CAST(:expr AS tsquery){restrict} ORDER BY rowid DESC "
            "LIMIT :window) AS w ORDER BY score, seq DESC LIMIT :pool"
        )

    def text_index(
        self,
        conn: Connection,
        table: str,
        columns: Sequence[str],
        rowid: int,
        texts: Sequence[str],
        tokenize: Tokenize,
    ) -> None:
        conn.execute(
            f"INSERT INTO {table} (rowid, doc) VALUES (?, CAST(? AS tsvector))",
            (rowid, tsvector_text(texts, tokenize)),
        )

    def text_clear(self, conn: Connection, table: str) -> None:
        conn.execute(f"DELETE FROM {table}")

    def text_vocabulary(
        self, conn: Connection, table: str, columns: Sequence[str]
    ) -> list[tuple[str, int, str]]:
        rows: set[tuple[str, int, str]] = set()
        for rowid, word, weights in conn.execute(
            f"SELECT rowid, u.lexeme, u.weights FROM {table}, unnest(doc) AS u"
        ):
            for weight in weights:
                rows.add((word, rowid, columns[_WEIGHTS.index(weight)]))
        return sorted(rows)

    def substrings_recall(
        self, table: str, column: str, pieces: Sequence[str]
    ) -> tuple[str, list[Any]]:
        where = " AND ".join(f"{column} LIKE ?" for _ in pieces)
        return f"SELECT rowid FROM {table} WHERE {where}", [f"%{_like_escaped(p)}%" for p in pieces]


SQLITE: Dialect = _SQLite()
POSTGRESQL: Dialect = _PostgreSQL()


def dialect_of(store: object) -> Dialect:
    """The dialect of a connection's or a database's backend (`backend`; a bare sqlite3
    connection has none and is SQLite's)."""
    return POSTGRESQL if getattr(store, "backend", "sqlite") == "postgresql" else SQLITE
