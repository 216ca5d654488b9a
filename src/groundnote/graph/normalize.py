"""Name normalisation of seed 000 §5.1, with the single-letter join of DESIGN §8.0.

normalize(s) = NFKC → lowercase → ä→ae, ö→oe, ü→ue, ß→ss → NFD, marks dropped → everything
outside letters and digits to a space → collapsed → a trailing run of single letters joined
(`e v` → `ev`) → trailing legal-form tokens dropped while one token remains.
"""

from __future__ import annotations

import unicodedata

__all__ = ["LEGAL_FORMS", "MAX_CHARS", "initials", "normalize", "trigrams"]

MAX_CHARS = 200
LEGAL_FORMS = frozenset(
    {"gmbh", "mbh", "ag", "kg", "ohg", "ug", "gbr", "ev", "se", "co", "inc", "ltd", "llc", "plc"}
)
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def _spaced(text: str) -> str:
    out = []
    for ch in unicodedata.normalize("NFD", text):
        cat = unicodedata.category(ch)
        if cat[0] == "M":
            continue
        out.append(ch if cat[0] in "LN" else " ")
    return "".join(out)


def _join_trailing_letters(tokens: list[str]) -> list[str]:
    # Without this, "e.V." stays "e v" and the legal form "ev" could never be dropped.
    start = len(tokens)
    while start > 0 and len(tokens[start - 1]) == 1:
        start -= 1
    if len(tokens) - start >= 2:
        return [*tokens[:start], "".join(tokens[start:])]
    return tokens


def normalize(text: str) -> str:
    lowered = unicodedata.normalize("NFKC", text).lower().translate(_UMLAUTS)
    tokens = _join_trailing_letters(_spaced(lowered).split())
    while len(tokens) > 1 and tokens[-1] in LEGAL_FORMS:
        tokens.pop()
    return " ".join(tokens)


def trigrams(key: str) -> set[str]:
    """Every three-character window, as FTS5's trigram tokenizer sees the text."""
    return {key[i : i + 3] for i in range(len(key) - 2)}


def initials(key: str) -> str:
    """The first letter of each token: `vertrieb nord` → `vn`; one token has none."""
    tokens = key.split()
    return "".join(t[0] for t in tokens) if len(tokens) >= 2 else ""
