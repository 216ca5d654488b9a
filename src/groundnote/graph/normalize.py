"""Name normalisation of seed 000 §5.1, with the single-letter join of DESIGN §8.0.

normalize(s) = NFKC → lowercase → ä→ae, ö→oe, ü→ue, ß→ss → NFD, marks dropped → everything
outside letters and digits to a space → collapsed → a trailing run of single characters
joined (`e v` → `ev`) and trailing legal-form tokens dropped while one token remains, both
repeated until nothing changes: dropping a legal form can leave a new trailing run
(`0:0:AG` → `0 0`), and a normaliser must give its own output back (`normalize(normalize(s))
== normalize(s)`), since entity_fts stores normalised text that is normalised again as a key.

The matching form (`match_form`) also leaves out leading academic titles (`Dr.`, `Prof.`,
`Dr.-Ing.`, `Dipl.-Ing.`): resolve and the duplicate check ignore them, the stored name and
entity_fts keep them (issue 21). Seed 000 §5.1's normalisation itself is unchanged.
"""

from __future__ import annotations

import unicodedata

from rapidfuzz.distance import OSA

__all__ = [
    "LEGAL_FORMS",
    "MAX_CHARS",
    "TITLES",
    "initials",
    "lookup_keys",
    "match_form",
    "normalize",
    "person_key",
    "trigrams",
]

MAX_CHARS = 200
LEGAL_FORMS = frozenset(
    {"gmbh", "mbh", "ag", "kg", "ohg", "ug", "gbr", "ev", "se", "co", "inc", "ltd", "llc", "plc"}
)
# Normalised academic title tokens, as they lead a name: "Prof. Dr.-Ing." → "prof dr ing".
TITLES = frozenset({"dr", "prof", "ing", "dipl", "med", "rer", "nat", "phil", "habil", "jur"})
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
    tokens = _spaced(lowered).split()
    while True:
        before = len(tokens)
        tokens = _join_trailing_letters(tokens)
        while len(tokens) > 1 and tokens[-1] in LEGAL_FORMS:
            tokens.pop()
        if len(tokens) == before:  # each step only ever shortens the list
            return " ".join(tokens)


def match_form(key: str) -> str:
    """A normalised text without its leading academic titles and without a misspelt `gmbh`
    at its end (`gbmbh`, `gmbhh`: one edit), while one token remains."""
    head, _, rest = key.partition(" ")
    last = key.rsplit(" ", 1)[-1]
    misspelt = rest and 4 <= len(last) <= 5 and _one_edit_from_gmbh(last)
    if head not in TITLES and not misspelt:
        return key
    tokens = key.split()
    if misspelt:
        tokens.pop()
    while len(tokens) > 1 and tokens[0] in TITLES:
        tokens.pop(0)
    return " ".join(tokens)


def _one_edit_from_gmbh(token: str) -> bool:
    # The one legal form long enough that a slip in it cannot make another word; shorter
    # ones (`ohg` → `ohn`) could, so they stay as typed.
    return token != "gmbh" and OSA.distance(token, "gmbh", score_cutoff=1) <= 1


def trigrams(key: str) -> set[str]:
    """Every three-character window, as FTS5's trigram tokenizer sees the text."""
    return {key[i : i + 3] for i in range(len(key) - 2)}


def initials(key: str) -> str:
    """The first letter of each token, titles left out: `vertrieb nord` → `vn`,
    `dr maximilian franke` → `mf`; one token has none."""
    tokens = match_form(key).split()
    return "".join(t[0] for t in tokens) if len(tokens) >= 2 else ""


def person_key(key: str) -> str:
    """The first initial and the last token, titles left out: `dr ing maximilian franke` →
    `m franke`, which `M. Franke`, `Franke, M.` and `M. J. Franke` ask for; one token: ""."""
    tokens = match_form(key).split()
    return f"{tokens[0][0]} {tokens[-1]}" if len(tokens) >= 2 else ""


def lookup_keys(key: str) -> list[str]:
    """The keys the initials pass finds a text by: its initials, when a query could be them
    (2–6 letters; `vn1` of `vertrieb nord 1` could never be asked for), and its person key."""
    found = []
    letters = initials(key)
    if 2 <= len(letters) <= 6 and letters.isalpha():
        found.append(letters)
    person = person_key(key)
    if person:
        found.append(person)
    return found
