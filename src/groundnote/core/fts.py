"""The full-text projection: normalised text in `rule_fts` / `source_fts`, and MATCH expressions.

Both sides pass through `normalize`, so a query typed without umlauts ("Mueller", "Strasse")
finds the stored spelling ("Müller", "Straße"); the tokenizer then removes other diacritics.
User text reaches MATCH only as quoted tokens, never as FTS syntax.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata

__all__ = [
    "STOPWORDS",
    "index_rule",
    "index_source",
    "match_all",
    "match_any",
    "normalize",
    "query_terms",
    "rebuild_fts",
]

_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_TOKEN = re.compile(r"[^\W_]+")
# Prefix matching finds German compounds ("Rabatt" → "Rabattstaffel"); below this length a
# prefix matches too much to be worth its cost.
PREFIX_MIN = 4
MAX_TERMS = 12

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einer",
        "einem",
        "einen",
        "und",
        "oder",
        "ist",
        "sind",
        "im",
        "in",
        "am",
        "an",
        "auf",
        "aus",
        "bei",
        "fuer",
        "mit",
        "von",
        "zu",
        "zum",
        "zur",
        "nicht",
        "nur",
        "auch",
        "wie",
        "als",
        "wird",
        "werden",
        "wurde",
    ]
)


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().translate(_FOLD)


def query_terms(query: str) -> list[str]:
    """The distinct tokens of a query, in order, at most MAX_TERMS."""
    seen: list[str] = []
    for token in _TOKEN.findall(normalize(query)):
        if token not in seen:
            seen.append(token)
    return seen[:MAX_TERMS]


def _quoted(term: str) -> str:
    return f'"{term}"*' if len(term) >= PREFIX_MIN else f'"{term}"'


def match_all(terms: list[str]) -> str:
    return " AND ".join(_quoted(t) for t in terms)


def match_any(terms: list[str]) -> str:
    """OR over the terms that carry meaning; empty when only stop words remain."""
    useful = [t for t in terms if t not in STOPWORDS]
    return " OR ".join(_quoted(t) for t in useful)


def index_rule(conn: sqlite3.Connection, seq: int, statement: str, quote: str | None) -> None:
    conn.execute(
        "INSERT INTO rule_fts (rowid, statement, quote) VALUES (?, ?, ?)",
        (seq, normalize(statement), normalize(quote or "")),
    )


def index_source(
    conn: sqlite3.Connection, seq: int, title: str, body: str, attachment_texts: list[str]
) -> None:
    conn.execute(
        "INSERT INTO source_fts (rowid, title, body, attachments) VALUES (?, ?, ?, ?)",
        (seq, normalize(title), normalize(body), normalize("\n".join(attachment_texts))),
    )


def rebuild_fts(conn: sqlite3.Connection) -> None:
    """Recreate both indexes from the truth tables, inside the caller's write transaction."""
    conn.execute("INSERT INTO rule_fts (rule_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO source_fts (source_fts) VALUES ('delete-all')")
    for row in conn.execute(
        "SELECT seq, statement, evidence_quote FROM rule ORDER BY seq"
    ).fetchall():
        index_rule(conn, row[0], row[1], row[2])
    texts: dict[str, list[str]] = {}
    for row in conn.execute(
        "SELECT source_id, text FROM source_attachment WHERE text IS NOT NULL ORDER BY source_id, n"
    ):
        texts.setdefault(row[0], []).append(row[1])
    for row in conn.execute("SELECT seq, id, title, body FROM source ORDER BY seq").fetchall():
        index_source(conn, row[0], row[2], row[3], texts.get(row[1], []))
