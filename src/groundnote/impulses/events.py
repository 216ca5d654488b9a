"""Lifecycle events of the impulse subsystem, dispatched in-process after a write commits.

`lifecycle(home).on("concept:created", handler)` subscribes and returns a function that
unsubscribes. Each home has its own dispatcher, so two homes in one process never hear each
other. A failing handler is logged and never undoes or blocks the write that fired it.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from groundnote.store.home import Home

__all__ = ["EVENTS", "LifecycleDispatcher", "LifecycleEvent", "LifecyclePayload", "lifecycle"]

log = logging.getLogger("groundnote.impulses")

# concept:deleted and edge:deleted belong to the vocabulary of seed 003; no shape deletes yet.
LifecycleEvent = Literal[
    "concept:created",
    "concept:resolved",
    "concept:updated",
    "concept:deleted",
    "edge:created",
    "edge:updated",
    "edge:deleted",
    "impulse:created",
    "impulse:resolved",
    "impulse:expired",
]
EVENTS: tuple[str, ...] = get_args(LifecycleEvent)


@dataclass(frozen=True)
class LifecyclePayload:
    event: LifecycleEvent
    org_id: str
    concept: dict[str, Any] | None = None
    edge: dict[str, Any] | None = None
    impulse: dict[str, Any] | None = None


Handler = Callable[[LifecyclePayload], None]


class LifecycleDispatcher:
    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}
        self._lock = threading.Lock()

    def on(self, event: LifecycleEvent, handler: Handler) -> Callable[[], None]:
        if event not in EVENTS:
            raise ValueError(f"unknown lifecycle event {event!r}; known: {', '.join(EVENTS)}")
        with self._lock:
            self._handlers.setdefault(event, []).append(handler)

        def off() -> None:
            with self._lock:
                if handler in self._handlers.get(event, []):
                    self._handlers[event].remove(handler)

        return off

    def emit(self, payloads: list[LifecyclePayload]) -> None:
        for payload in payloads:
            with self._lock:
                handlers = list(self._handlers.get(payload.event, ()))
            for handler in handlers:
                try:
                    handler(payload)
                except Exception:
                    log.exception("lifecycle handler for %s failed", payload.event)


_DISPATCHERS: weakref.WeakKeyDictionary[Home, LifecycleDispatcher] = weakref.WeakKeyDictionary()
_CREATE_LOCK = threading.Lock()


def lifecycle(home: Home) -> LifecycleDispatcher:
    """The dispatcher of one home."""
    with _CREATE_LOCK:
        found = _DISPATCHERS.get(home)
        if found is None:
            found = _DISPATCHERS[home] = LifecycleDispatcher()
        return found
