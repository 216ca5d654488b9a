"""How well one normalised text answers a resolve key (seed 000 §5.3, DESIGN §8.0, issue 21).

Both sides are compared in their matching form (normalised, leading academic titles and a
misspelt trailing `gmbh` left out, so `Dr.-Ing. Maximilian Franke` is `maximilian franke`;
normalize.py). The kinds and their scores:

    exact     the matching form of the name equals the key's                1.00
    alias     the matching form of an alias equals the key's                0.95
    typo      OSA distance ≤ 2: max(1 − d/len, ratio)                       < 0.94
    tokens    the same tokens in another order                              0.90
    similar   ratio (rapidfuzz, Indel), lowered to its mean with the token
              overlap weighted by rarity when that is less                  ≤ 0.89
    initials  the key (one token, 2–6 letters) = token initials, or the
              key is initials and a surname (`m franke`, `franke m`) of a
              text whose first names have those initials                    0.80

The typo score keeps the order of max(1 − d/len, ratio) all the way up: the part above 0.90 is
pressed linearly into 0.90–0.94 instead of being cut at 0.94, so that distance, not depth and
id, chooses between one and two edits in a long name.

Another thing, not a misspelling. A typo and a similar name are scored *below the duplicate
threshold* when the words say the two are different things, however few letters differ:

* the numbers differ (`projekt zugspitze 2027` ~ `2021`): tokens with a digit must be equal;
* a word is added or missing (`zugspitze` ~ `zugspitze phase 3`);
* a word is replaced by another (`meyer medizintechnik` ~ `baecker medizintechnik`): two
  words count as one misspelt word only when the longer has four letters or more, the shorter
  three, and they are one edit apart (two from seven letters on; an umlaut spelt out, `ue`
  for `ü`, counts as one letter), so `schmid` ~ `schmidt` and `finn` ~ `fin` stay typos
  and `ben` ~ `lena`, `meyer` ~ `maier`, `bau` ~ `bus` do not.

Such a score s is pressed from [0.50, 1] into [0.50, 0.84] (order kept), so that the
candidates still rank among themselves and a resolve still shows them, while no refusal of a
create rests on them. Only spaces moved (`vertriebnord`) is still a typo.

Weights: a token weighs log((N + 1) / (n + 1)) + 1 for n of the N entities in the scope
holding it, so shared trade words (`medizintechnik`, `vertrieb`, `projekt`) count less in the
overlap than surnames, places and product names. The overlap only ever lowers a similar
score (a name sharing only common words with the key ranks below one sharing a rare word at
the same ratio), so the ratio alone bounds it: resolve finishes (overlap, word pairing) only
the candidates whose bound can still place them among the first five.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import permutations
from typing import NamedTuple

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from groundnote.graph.normalize import initials, match_form

__all__ = [
    "ALIAS",
    "DIFFERENT_CEILING",
    "DUPLICATE_SCORE",
    "EXACT",
    "INITIALS",
    "MIN_SCORE",
    "TOKENS",
    "Key",
    "weights",
]

MIN_SCORE = 0.50
DUPLICATE_SCORE = 0.85
TYPO_LIMIT = 2
EXACT, ALIAS, TOKENS, INITIALS = 1.0, 0.95, 0.90, 0.80
TYPO_KNEE, TYPO_CEILING, SIMILAR_CEILING = 0.90, 0.94, 0.89
DIFFERENT_CEILING = 0.84
# More misspelt words than this in one name is another name, and the pairing stays cheap.
PAIRED_WORDS = 3


def weights(total: int, counts: Iterable[tuple[str, int]]) -> dict[str, float]:
    """Token → weight for `total` entities in the scope and each token's holder count."""
    return {token: math.log((total + 1) / (held + 1)) + 1 for token, held in counts}


def _different(score: float) -> float:
    if score <= MIN_SCORE:
        return score
    return MIN_SCORE + (score - MIN_SCORE) * (DIFFERENT_CEILING - MIN_SCORE) / (1 - MIN_SCORE)


def _has_digit(token: str) -> bool:
    # A normalised token holds only letters and digits (normalize.py), so this is exact.
    return not token.isalpha()


_FOLDED = (("ae", "ä"), ("oe", "ö"), ("ue", "ü"), ("ss", "ß"))


def _folded(token: str) -> str:
    for spelt, letter in _FOLDED:
        token = token.replace(spelt, letter)
    return token


def _one_word(a: str, b: str) -> bool:
    """Whether two differing tokens may be one word misspelt (never numbers, never short)."""
    shorter, longer = sorted((len(a), len(b)))
    if shorter < 3 or longer < 4 or _has_digit(a) or _has_digit(b):
        return False
    limit = 2 if longer >= 7 else 1
    if OSA.distance(a, b, score_cutoff=limit) <= limit:
        return True
    # Normalising spells ü as ue, so one slip on an umlaut (fürth → fbrth) costs two edits.
    return bool(OSA.distance(_folded(a), _folded(b), score_cutoff=limit) <= limit)


class _First(NamedTuple):
    """The cheap part of scoring one text: the score when `done`, else an upper bound and
    what finishing needs (`measure` is the typo score or the ratio). A tuple: a frozen
    dataclass cost 1.5 µs to make, a fifth of scoring a text."""

    bound: float
    kind: str
    done: bool = True
    form: str = ""
    tokens: Sequence[str] = ()
    measure: float = 0.0
    person: bool = False
    other: bool = False  # surely another thing (word count or numbers differ)


# A text under the caller's floor (`Key.floor`), answered as "nothing fits".
_BELOW = _First(0.0, "")


class Key:
    """A key with what every text is scored against computed once, not once per text."""

    __slots__ = (
        "_firsts",
        "floor",
        "initials",
        "joined",
        "likeness",
        "numbers",
        "person",
        "sorted_tokens",
        "text",
        "token_set",
        "tokens",
        "weights",
    )

    def __init__(
        self, key: str, token_weights: Mapping[str, float] | None = None, floor: float = 0.0
    ) -> None:
        """`floor`: the least score the caller keeps; a text sure to score below it may be
        answered as (0, "") without being measured."""
        self.text = match_form(key)
        self.floor = floor
        tokens = self.text.split()
        self.tokens = tokens
        self.token_set = set(tokens)
        self.joined = self.text.replace(" ", "")
        self.numbers = sorted(t for t in tokens if _has_digit(t))
        self.sorted_tokens = sorted(tokens) if len(tokens) > 1 else None
        self.initials = len(tokens) == 1 and 2 <= len(self.text) <= 6 and self.text.isalpha()
        self.person = _person_pattern(tokens)
        self.weights: Mapping[str, float] = token_weights or {}
        # (key token, text token) → ratio: the texts of one resolve share most of their words.
        self.likeness: dict[tuple[str, str], float] = {}
        self._firsts: dict[tuple[str, bool], _First] = {}

    @property
    def person_lookup(self) -> str:
        """The index key of persons this key names by initials (`m franke`), or ""."""
        if self.person is None:
            return ""
        letters, surname = self.person
        return f"{letters[0]} {surname[-1]}"

    def score(self, text: str, *, is_name: bool) -> tuple[float, str]:
        return self._finish(self._first(text, is_name))

    def best(self, texts: tuple[str, ...]) -> tuple[float, str]:
        best = (0.0, "")
        for i, text in enumerate(texts):
            found = self.score(text, is_name=i == 0)
            if found[0] > best[0]:
                best = found
        return best

    def bound(self, texts: tuple[str, ...]) -> float:
        """An upper bound of `best(texts)` from the cheap part of scoring alone (two distances
        in C), so that resolve finishes only the candidates that can still be among the first."""
        return max(self._first(text, i == 0).bound for i, text in enumerate(texts))

    def _first(self, text: str, is_name: bool) -> _First:
        cached = self._firsts.get((text, is_name))
        if cached is not None:
            return cached
        key = self.text
        form = match_form(text)
        if form == key:
            first = _First(EXACT, "exact") if is_name else _First(ALIAS, "alias")
            self._firsts[(text, is_name)] = first
            return first
        if self.floor > DIFFERENT_CEILING and self._surely_another(form):
            # Another thing scores DIFFERENT_CEILING at most, and no kind below that reaches
            # the floor: the duplicate check measured 50 names a number apart for nothing.
            self._firsts[(text, is_name)] = _BELOW
            return _BELOW
        tokens = form.split()
        if self.sorted_tokens is not None and self.sorted_tokens == sorted(tokens):
            first = _First(TOKENS, "tokens")
        else:
            first = self._measured(form, tokens)
        self._firsts[(text, is_name)] = first
        return first

    def _measured(self, form: str, tokens: list[str]) -> _First:
        key = self.text
        ratio = fuzz.ratio(key, form) / 100
        # score_cutoff bounds the walk to the band |i - j| ≤ 2 and stops early (seed §5.3).
        distance = OSA.distance(key, form, score_cutoff=TYPO_LIMIT)
        person = self.person is not None and _person_match(self.person, tokens)
        # Cheap and certain: another count of words or other numbers is another thing (unless
        # only spaces moved), so its bound is pressed now and the word pairing never runs.
        other = form.replace(" ", "") != self.joined and (
            len(tokens) != len(self.tokens)
            or sorted(t for t in tokens if _has_digit(t)) != self.numbers
        )
        if distance <= TYPO_LIMIT:
            score = max(1 - distance / max(len(key), len(form)), ratio)
            if score > TYPO_KNEE:  # below 1: the texts differ, so d ≥ 1 and ratio < 1
                score = TYPO_KNEE + (score - TYPO_KNEE) * (TYPO_CEILING - TYPO_KNEE) / (
                    1 - TYPO_KNEE
                )
            bound = _different(score) if other else score
            bound = max(bound, INITIALS) if person else bound
            return _First(bound, "typo", False, form, tokens, score, person, other)
        if self.initials and initials(form) == key:
            return _First(INITIALS, "initials")
        bound = min(ratio, SIMILAR_CEILING)
        bound = _different(bound) if other else bound
        bound = max(bound, INITIALS) if person else bound
        return _First(bound, "similar", False, form, tokens, ratio, person, other)

    def _surely_another(self, form: str) -> bool:
        """Whether the word count or the numbers differ (and not only spaces moved), decided
        on the cheap: a number of the key that is not in the text at all, or another number of
        words. A text this passes may still be another thing; `_measured` tells."""
        joined = form.replace(" ", "")
        if joined == self.joined:
            return False
        for number in self.numbers:
            if number not in joined:
                return True
        return len(form.split()) != len(self.tokens)

    def _finish(self, first: _First) -> tuple[float, str]:
        if first.done:
            return first.bound, first.kind
        if first.kind == "typo":
            score = first.measure
        else:
            ratio = first.measure
            score = min(ratio, (ratio + self._overlap(first.tokens)) / 2, SIMILAR_CEILING)
        if first.other or self._another_thing(first.tokens, first.form):
            score = _different(score)
        if first.person and score < INITIALS:
            return INITIALS, "initials"
        return score, first.kind

    def _another_thing(self, tokens: Sequence[str], form: str) -> bool:
        """A differing number, an added or missing word, or a replaced word (module doc)."""
        if form.replace(" ", "") == self.joined:
            return False
        if sorted(t for t in tokens if _has_digit(t)) != self.numbers:
            return True
        left_text = list(tokens)
        left_key = []
        for word in self.tokens:  # as multisets: a repeated word counts each time
            if word in left_text:
                left_text.remove(word)
            else:
                left_key.append(word)
        if len(left_key) != len(left_text) or len(left_key) > PAIRED_WORDS:
            return True
        if not left_key:
            return False
        return not any(
            all(_one_word(a, b) for a, b in zip(left_key, order, strict=True))
            for order in permutations(left_text)
        )

    def _overlap(self, tokens: Sequence[str]) -> float:
        """The key's tokens found in the text, each by its best match, weighted by rarity."""
        weight = self.weights
        total = sum(weight.get(t, 1.0) for t in self.tokens) + sum(
            weight.get(t, 1.0) for t in tokens
        )
        if not tokens or not total:
            return 0.0
        theirs = set(tokens)
        likeness = self.likeness
        shared = 0.0
        for word in self.tokens:
            if word in theirs:
                shared += 2 * weight.get(word, 1.0)
                continue
            best, partner = -1.0, ""
            for token in tokens:
                pair = (word, token)
                like = likeness.get(pair)
                if like is None:
                    like = likeness[pair] = fuzz.ratio(word, token) / 100
                if like > best:
                    best, partner = like, token
            shared += (weight.get(word, 1.0) + weight.get(partner, 1.0)) * best
        return min(1.0, shared / total)


def _person_pattern(tokens: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """(initials, surname tokens) of `m franke`, `m j franke`, `franke m`; else None."""
    single = [len(t) == 1 and t.isalpha() for t in tokens]
    count = sum(single)
    if not count or count == len(tokens):
        return None
    if all(single[:count]):
        letters, surname = tokens[:count], tokens[count:]
    elif all(single[-count:]):
        letters, surname = tokens[-count:], tokens[:-count]
    else:
        return None
    if not all(t.isalpha() and len(t) >= 2 for t in surname):
        return None
    return "".join(letters), tuple(surname)


def _person_match(person: tuple[str, tuple[str, ...]], tokens: list[str]) -> bool:
    """The text ends with the surname and its first names begin with the initials."""
    letters, surname = person
    if len(tokens) <= len(surname) or tuple(tokens[-len(surname) :]) != surname:
        return False
    firsts = tokens[: -len(surname)]
    return "".join(t[0] for t in firsts).startswith(letters)
