"""The full-text projection: normalised text in `rule_fts` / `source_fts`, and text queries.

Both sides pass through `normalize`, so a query typed without umlauts ("Mueller", "Strasse")
finds the stored spelling ("Müller", "Straße"); the tokenizer then removes other diacritics.
User text reaches a query only as words of a `TextQuery`, never as an engine's syntax; the
store's dialect writes the index and renders the query for its backend.

A prefix term ("rabatt"*) is expanded into the indexed words it stands for ("rabatt" OR
"rabattstaffel"), looked up in `fts_word`: FTS5 answers a prefix query by copying the whole
doclist of every matching word into one buffer before it yields a row, so its cost grows with
the scope even under LIMIT, while an OR of words is merged lazily and stops at the LIMIT.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from groundnote.store.dialect import Term, TextQuery, dialect_of
from groundnote.store.sql import Connection

__all__ = [
    "RULE_COLUMNS",
    "SOURCE_COLUMNS",
    "STOPWORDS",
    "expand_prefixes",
    "index_rule",
    "index_source",
    "index_sources",
    "match_all",
    "match_any",
    "normalize",
    "query_terms",
    "rebuild_fts",
    "tokens",
    "word_set",
]

_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_TOKEN = re.compile(r"[^\W_]+")
# Prefix matching finds German compounds ("Rabatt" → "Rabattstaffel"); below this length a
# prefix matches too much to be worth its cost.
PREFIX_MIN = 4
MAX_TERMS = 12
# Beyond this many words an OR costs more than the prefix merge it replaces: keep the prefix.
EXPANSION_MAX = 32

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


def _bare(token: str) -> str:
    """A token as unicode61 with remove_diacritics stores it: without combining marks."""
    if token.isascii():
        return token
    return "".join(c for c in unicodedata.normalize("NFKD", token) if not unicodedata.combining(c))


def _words(texts: Iterable[str]) -> set[str]:
    return {_bare(t) for text in texts for t in _TOKEN.findall(text)}


def word_set(normalized: str) -> set[str]:
    """The words of a normalized text as the index stores them (diacritics removed)."""
    return _words([normalized])


def expand_prefixes(conn: Connection, terms: list[str]) -> dict[str, list[str]]:
    """Each prefix term → the indexed words it stands for, the term itself first.

    A term with more than EXPANSION_MAX words is left out, so it stays a prefix query.
    """
    long = [t for t in terms if len(t) >= PREFIX_MIN]
    if not long:
        return {}
    # Every word starting with `bare` sorts between it and `bare` + the highest code point;
    # one statement for all the terms, each its own range and LIMIT.
    branches = " UNION ALL ".join(
        f"SELECT * FROM (SELECT {i} AS term, word FROM fts_word WHERE word >= ? AND word < ? "
        f"ORDER BY word LIMIT ?) AS t{i}"
        for i in range(len(long))
    )
    params = [p for t in long for p in (_bare(t), _bare(t) + "\U0010ffff", EXPANSION_MAX + 1)]
    found: dict[int, list[str]] = {i: [] for i in range(len(long))}
    for r in conn.execute(branches, params):
        found[r[0]].append(r[1])
    out: dict[str, list[str]] = {}
    for i, term in enumerate(long):
        words = sorted(found[i])  # code point order, as the collation C sorts
        if len(words) <= EXPANSION_MAX:
            bare = _bare(term)
            # The word itself always, in case the index splits it other than _TOKEN does.
            out[term] = [bare, *(w for w in words if w != bare)]
    return out


def _term(term: str, words: dict[str, list[str]] | None) -> Term:
    """A query term in the words the index holds (FTS5 strips diacritics from a query itself;
    a PostgreSQL index compares the words as given)."""
    bare = _bare(term)
    if len(term) < PREFIX_MIN:
        return Term((bare,))
    expanded = (words or {}).get(term)
    if expanded is None:
        return Term((bare,), prefix=True)
    if len(expanded) == 1:
        return Term((bare,))
    return Term(tuple(expanded))


def match_all(terms: list[str], words: dict[str, list[str]] | None = None) -> TextQuery:
    """AND over the terms; `words` (from expand_prefixes) replaces prefixes by their words."""
    return TextQuery(tuple(_term(t, words) for t in terms), every=True)


def match_any(terms: list[str], words: dict[str, list[str]] | None = None) -> TextQuery:
    """OR over the terms that carry meaning; no terms when only stop words remain."""
    useful = [t for t in terms if t not in STOPWORDS]
    return TextQuery(tuple(_term(t, words) for t in useful), every=False)


def _index_words(conn: Connection, texts: Iterable[str]) -> None:
    conn.executemany(
        "INSERT INTO fts_word (word) VALUES (?) ON CONFLICT (word) DO NOTHING",
        [(w,) for w in sorted(_words(texts))],
    )


def tokens(text: str) -> list[str]:
    """The words of a text as the index holds them (what fts_word lists)."""
    return [_bare(t) for t in _TOKEN.findall(text)]


RULE_COLUMNS = ("statement", "quote")
SOURCE_COLUMNS = ("title", "body", "attachments")


def index_rule(conn: Connection, seq: int, statement: str, quote: str | None) -> None:
    texts = (normalize(statement), normalize(quote or ""))
    dialect_of(conn).text_index(conn, "rule_fts", RULE_COLUMNS, seq, texts, tokens)
    _index_words(conn, texts)


def index_source(
    conn: Connection, seq: int, title: str, body: str, attachment_texts: list[str]
) -> None:
    texts = (normalize(title), normalize(body), normalize("\n".join(attachment_texts)))
    dialect_of(conn).text_index(conn, "source_fts", SOURCE_COLUMNS, seq, texts, tokens)
    _index_words(conn, texts)


def index_sources(conn: Connection, after_seq: int = 0) -> int:
    """Index the sources with seq > after_seq from their rows and attachments; how many.

    One streaming pass over the rows (nothing is held but one source), for a rebuild and for
    an import, which writes the source rows before their attachments arrive.
    """
    done = 0
    current: tuple[int, str, str] | None = None
    texts: list[str] = []
    for seq, title, body, text in conn.execute(
        "SELECT s.seq, s.title, s.body, a.text FROM source s LEFT JOIN source_attachment a "
        "ON a.source_id = s.id AND a.text IS NOT NULL WHERE s.seq > ? ORDER BY s.seq, a.n",
        (after_seq,),
    ):
        if current is not None and current[0] != seq:
            index_source(conn, *current, texts)
            done += 1
            texts = []
        current = (seq, title, body)
        if text is not None:
            texts.append(text)
    if current is not None:
        index_source(conn, *current, texts)
        done += 1
    return done


def rebuild_fts(conn: Connection) -> None:
    """Recreate both indexes from the truth tables, inside the caller's write transaction."""
    dialect = dialect_of(conn)
    dialect.text_clear(conn, "rule_fts")
    dialect.text_clear(conn, "source_fts")
    conn.execute("DELETE FROM fts_word")
    for seq, statement, quote in conn.execute(
        "SELECT seq, statement, evidence_quote FROM rule ORDER BY seq"
    ):
        index_rule(conn, seq, statement, quote)
    index_sources(conn)
