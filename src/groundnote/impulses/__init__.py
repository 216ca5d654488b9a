"""Impulses (seed 003): concepts, EMA edges, usage, sequences, credit repair, the impulse table,
audit, lifecycle events, the expiry sweep, the shapes of the resolve endpoint and discovery."""

from groundnote.impulses.capabilities import CAPABILITIES
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.shapes import (
    ADVERTISED_SHAPES,
    ANONYMOUS_READ_SHAPES,
    RESOLVE_ENDPOINT,
    check_shape_dispatch,
)
from groundnote.impulses.table import prune_expired_impulses, prune_periodically, sweep_if_due
from groundnote.impulses.transfer import EMPTY_ORG, IMPULSES_TRANSFER
from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("impulses", load_migrations("groundnote.impulses", "impulses"))

__all__ = [
    "ADVERTISED_SHAPES",
    "ANONYMOUS_READ_SHAPES",
    "CAPABILITIES",
    "EMPTY_ORG",
    "IMPULSES_TRANSFER",
    "RESOLVE_ENDPOINT",
    "SUBSYSTEM",
    "LifecyclePayload",
    "check_shape_dispatch",
    "lifecycle",
    "prune_expired_impulses",
    "prune_periodically",
    "sweep_if_due",
]
