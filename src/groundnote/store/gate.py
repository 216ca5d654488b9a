"""The FIFO write gate of seed 002: one permit per store file, served in arrival order.

SQLite's busy_timeout lets a saturating writer starve a small one; a ticket queue does not.
The gate is not reentrant: a thread that asks for the permit while holding it gets
`WriteGateReentrant` at once instead of waiting for itself forever.

A wait may be bounded: a waiter whose time runs out leaves the queue (`GateTimeout`) and its
ticket is skipped when its turn comes, so the others keep their order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["GateTimeout", "WriteGate", "WriteGateReentrant"]


class WriteGateReentrant(RuntimeError):
    """A write transaction tried to open another on the same store file."""


class GateTimeout(TimeoutError):
    """The permit did not come within the wait allowed."""


class WriteGate:
    def __init__(self, name: str) -> None:
        self.name = name
        self._cond = threading.Condition()
        self._next_ticket = 0
        self._serving = 0
        self._abandoned: set[int] = set()
        self._holder: int | None = None

    @contextmanager
    def permit(self, timeout: float | None = None) -> Iterator[None]:
        """Wait for this thread's turn (at most `timeout` seconds), then hold the permit."""
        me = threading.get_ident()
        with self._cond:
            if self._holder == me:
                raise WriteGateReentrant(
                    f"a write transaction on {self.name} is already open in this thread; "
                    "do all writes of one operation inside that one transaction"
                )
            ticket = self._next_ticket
            self._next_ticket += 1
            deadline = None if timeout is None else time.monotonic() + timeout
            while self._serving != ticket:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    self._abandoned.add(ticket)
                    raise GateTimeout(f"no write permit on {self.name} within {timeout} s")
                self._cond.wait(left)
            self._holder = me
        try:
            yield
        finally:
            with self._cond:
                self._holder = None
                self._serving += 1
                while self._serving in self._abandoned:
                    self._abandoned.discard(self._serving)
                    self._serving += 1
                self._cond.notify_all()

    @property
    def held_by_current_thread(self) -> bool:
        return self._holder == threading.get_ident()
