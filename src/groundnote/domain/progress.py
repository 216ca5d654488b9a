"""How long work reports how far it has come, whoever draws the bar."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress"]

Progress = Callable[[str, int, int], None]
"""`progress(phase, done, total)`: `done` of `total` items of the named phase are finished."""
