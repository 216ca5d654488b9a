"""A call its caller gave up on: its write transactions check this before they commit.

A surface that can be told a call is cancelled (MCP's `notifications/cancelled`) runs the call
inside `cancellable(event)` and sets the event; the next commit of that call then rolls back
with `Cancelled` instead, so that a cancelled write writes nothing. The handler runs on a
worker thread, and the context variable travels there with the call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from groundnote.domain.errors import Cancelled

__all__ = ["cancellable", "check_before_commit"]

_CURRENT: ContextVar[threading.Event | None] = ContextVar("groundnote_cancel", default=None)


@contextmanager
def cancellable(event: threading.Event | None) -> Iterator[None]:
    """Writes inside are rolled back once `event` is set; `None`: writes that always commit
    (the call's own log row, which records a cancellation too)."""
    token = _CURRENT.set(event)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check_before_commit() -> None:
    event = _CURRENT.get()
    if event is not None and event.is_set():
        raise Cancelled("The call was cancelled before its write committed; nothing was written.")
