"""Impulses (seed 003): concepts, EMA edges, usage, sequences, credit repair, the impulse table,
audit, lifecycle events, the expiry sweep, the resolve dispatcher and discovery."""

from groundnote.impulses.capabilities import CAPABILITIES
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.resolve import RESOLVE_ENDPOINT, ResolveAnswer, resolve_request
from groundnote.impulses.shapes import ADVERTISED_SHAPES, check_shape_dispatch
from groundnote.impulses.table import prune_expired_impulses, prune_periodically
from groundnote.impulses.writes import WRITE_OPS, Caller, perform
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("impulses", load_migrations("groundnote.impulses", "impulses"))

__all__ = [
    "ADVERTISED_SHAPES",
    "CAPABILITIES",
    "RESOLVE_ENDPOINT",
    "SUBSYSTEM",
    "WRITE_OPS",
    "Caller",
    "LifecyclePayload",
    "ResolveAnswer",
    "check_shape_dispatch",
    "lifecycle",
    "perform",
    "prune_expired_impulses",
    "prune_periodically",
    "resolve_request",
]
