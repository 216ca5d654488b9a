"""The FIFO write gate of seed 002: one permit per store file, served in arrival order.

SQLite's busy_timeout lets a saturating writer starve a small one; a ticket queue does not.
The gate is not reentrant: a thread that asks for the permit while holding it gets
`WriteGateReentrant` at once instead of waiting for itself forever.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["WriteGate", "WriteGateReentrant"]


class WriteGateReentrant(RuntimeError):
    """A write transaction tried to open another on the same store file."""


class WriteGate:
    def __init__(self, name: str) -> None:
        self.name = name
        self._cond = threading.Condition()
        self._next_ticket = 0
        self._serving = 0
        self._holder: int | None = None

    @contextmanager
    def permit(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            if self._holder == me:
                raise WriteGateReentrant(
                    f"a write transaction on {self.name} is already open in this thread; "
                    "do all writes of one operation inside that one transaction"
                )
            ticket = self._next_ticket
            self._next_ticket += 1
            while self._serving != ticket:
                self._cond.wait()
            self._holder = me
        try:
            yield
        finally:
            with self._cond:
                self._holder = None
                self._serving += 1
                self._cond.notify_all()

    @property
    def held_by_current_thread(self) -> bool:
        return self._holder == threading.get_ident()
