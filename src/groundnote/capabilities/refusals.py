"""Refused calls without credentials: told to the process log, sampled, never written.

Anyone who reaches the port can send them, so writing a row for each would let a stranger
fill instance.db and hold its write gate against real writers (issue 15: 600 refusals, 600
rows). They are logged instead, at most `BURST` lines a `WINDOW`, and the lines left out are
counted in the next one.
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["AnonymousRefusals"]

log = logging.getLogger("groundnote.refused")

BURST = 10
WINDOW = 60.0


class AnonymousRefusals:
    def __init__(self, burst: int = BURST, window: float = WINDOW) -> None:
        self.burst, self.window = burst, window
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._shown = 0
        self._left_out = 0

    def note(self, operation: str, outcome: str, channel: str) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._started >= self.window:
                self._started, self._shown = now, 0
            if self._shown >= self.burst:
                self._left_out += 1
                return
            self._shown += 1
            left_out, self._left_out = self._left_out, 0
        more = f" ({left_out} more left out before this one)" if left_out else ""
        log.warning(
            "refused without credentials: %s on %s, %s%s", operation, channel, outcome, more
        )
