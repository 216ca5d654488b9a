"""Failed credentials are throttled per client address: bad tokens, bad login links.

Every answer 401 from one address within a minute counts; past `server.auth_failures_per_minute`
the address gets `429 too-many-attempts` with `Retry-After` (the seconds until its oldest
failure leaves the window) on every request, before any route runs, so guessing tokens costs
the guesser time and the server nothing. Good credentials are never slowed: the count is of
failures only, and it drains by itself.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundnote.domain.errors import TooManyAttempts
from groundnote.surfaces.http.errors import error_response

__all__ = ["FailureThrottle"]

WINDOW = 60.0
# Addresses remembered at most; past it the quietest are forgotten, so a flood of spoofed
# sources cannot grow the table without bound.
MAX_ADDRESSES = 10_000


class FailureThrottle:
    def __init__(self, app: ASGIApp, per_minute: int) -> None:
        self.app = app
        self.per_minute = per_minute
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> deque[float] | None:
        failures = self._failures.get(address)
        if failures is None:
            return None
        while failures and failures[0] <= now - WINDOW:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return None
        return failures

    def retry_after(self, address: str) -> int | None:
        """Seconds the address must wait, or None when it may call."""
        now = time.monotonic()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None or len(failures) < self.per_minute:
                return None
            return max(1, math.ceil(failures[0] + WINDOW - now))

    def failed(self, address: str) -> None:
        now = time.monotonic()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None:
                if len(self._failures) >= MAX_ADDRESSES:
                    quietest = min(self._failures, key=lambda a: len(self._failures[a]))
                    del self._failures[quietest]
                failures = self._failures[address] = deque()
            failures.append(now)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "-"
        wait = self.retry_after(address)
        if wait is not None:
            refusal = TooManyAttempts(
                f"Too many failed credentials from your address: more than {self.per_minute} "
                f"a minute. Try again in {wait} s.",
                retry_after=wait,
            )
            await error_response(refusal)(scope, receive, send)
            return

        async def counted_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                self.failed(address)
            await send(message)

        await self.app(scope, receive, counted_send)
