"""Scopes a grant may use that are near a name it asked for: the help a typo gets."""

from __future__ import annotations

from rapidfuzz.distance import OSA

from groundnote.auth.principal import Principal
from groundnote.domain.errors import ScopeNotAllowed, scope_refusal

__all__ = ["close_scopes", "refuse_scope"]

CLOSE_MAX = 3


def close_scopes(principal: Principal, asked: str, known: list[str]) -> list[str]:
    """Up to three scopes the principal may read whose names are within a typo or two of
    `asked` (a swapped pair costs one), nearest first. Only the grant's own scopes are
    candidates, so the answer never tells whether a scope it cannot read exists."""
    limit = 1 if len(asked) <= 4 else 2
    near = []
    for name in principal.readable_scopes(known):
        if name == asked:
            continue
        distance = OSA.distance(asked, name, score_cutoff=limit)
        if distance <= limit:
            near.append((distance, name))
    return [name for _, name in sorted(near)[:CLOSE_MAX]]


def refuse_scope(principal: Principal, asked: str, known: list[str]) -> ScopeNotAllowed:
    """The one scope refusal, naming the grant's scopes close to the one asked for."""
    return scope_refusal(close_scopes(principal, asked, known))
