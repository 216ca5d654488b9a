"""Finding a term inside blocks (seed 002 core/occurrence).

The trigram index narrows the candidates; the decision is made here, in Python: a use is the
whole word (or phrase), case-insensitive, in the block text of the term's locale.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from groundnote.context.blockcache import BlockText, Placement
from groundnote.context.locales import SOURCE

__all__ = ["BlockReader", "Occurrence", "find", "positions", "scan"]


class BlockReader(Protocol):
    """What the materializer and the occurrence search read from a block store: the SQLite
    block cache, or the in-memory one of the store-less build."""

    def placements(self, keys: Collection[str] | None = None) -> list[Placement]: ...
    def texts(self, keys: Collection[str] | None = None) -> list[BlockText]: ...
    def unit_blocks(self) -> dict[tuple[str, str], str]: ...
    def reconcile_index(self) -> int: ...
    def candidates(self, needle: str, locale: str) -> list[BlockText]: ...


@dataclass(frozen=True, slots=True)
class Occurrence:
    content_key: str
    locale: str
    positions: tuple[tuple[int, int], ...]  # [start, end) character offsets in the block text


def _fold(text: str) -> str:
    """Lower case one character at a time, keeping each one's width, so offsets in the folded
    text are offsets in the text. Python's own case-insensitive matching is more lenient than
    this (it pairs dotless ı with I), and a match the trigram index cannot see is a use lost."""
    if text.isascii():
        return text.lower()
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


# Large enough for several whole vocabularies (2,000 concepts in 3 locales is ~8,000 terms):
# at 4,096 every pass over such a vocabulary evicted every pattern before its next use.
@lru_cache(maxsize=32768)
def _pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(_fold(term)) + r"(?!\w)")


def positions(term: str, text: str) -> tuple[tuple[int, int], ...]:
    """[start, end) of each whole-word, case-insensitive use of `term` in `text`."""
    return tuple((m.start(), m.end()) for m in _pattern(term).finditer(_fold(text)))


def find(cache: BlockReader, term: str, locale: str, source_locale: str) -> list[Occurrence]:
    """Live uses of a term in one locale; the source locale's term searches the source texts.

    The caller reconciles the index first (`reconcile_index`), once per search.
    """
    stored = SOURCE if locale == source_locale else locale
    found = []
    for candidate in cache.candidates(term, stored):
        spots = positions(term, candidate.text)
        if spots:
            found.append(Occurrence(candidate.content_key, locale, spots))
    return sorted(found, key=lambda o: o.content_key)


def scan(texts: list[BlockText], term: str, locale: str, source_locale: str) -> list[Occurrence]:
    """The same decision as `find`, over texts already in hand (a few changed blocks)."""
    stored = SOURCE if locale == source_locale else locale
    found = []
    for text in texts:
        if text.locale == stored:
            spots = positions(term, text.text)
            if spots:
                found.append(Occurrence(text.content_key, locale, spots))
    return sorted(found, key=lambda o: o.content_key)
