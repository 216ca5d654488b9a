"""Bounds every input keeps, whatever surface it came through."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_NESTING", "input_problem", "nests_within"]

# Deeper than any input model nests (the deepest takes a few levels); input nested deeper is
# refused before a parser, a validator or a hash could recurse into it.
MAX_NESTING = 64


def _problem(value: Any, limit: int, strings: bool) -> str | None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if strings and not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return "a string holds a lone surrogate, which is not text"
            continue
        if isinstance(item, dict):
            children: list[Any] = [*item.keys(), *item.values()] if strings else [*item.values()]
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        if depth > limit:
            return f"it nests deeper than {limit} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


def nests_within(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether JSON-like data nests at most `limit` levels, walked without recursion."""
    return _problem(value, limit, strings=False) is None


def input_problem(value: Any) -> str | None:
    """Why an input cannot be taken whatever its model says (too deep, not text), or None."""
    return _problem(value, MAX_NESTING, strings=True)
