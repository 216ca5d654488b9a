"""Impulses (seed 003): concepts, EMA edges, usage, sequences, credit repair, the impulse table,
audit, lifecycle events, the expiry sweep, the resolve dispatcher and discovery.

Public faces, imported from their modules: `capabilities.CAPABILITIES`, `resolve.resolve_request`
and `RESOLVE_ENDPOINT`, `shapes.ADVERTISED_SHAPES`, `table.prune_expired_impulses` and
`prune_periodically`, `events.lifecycle`, `writes.perform`. This package's own namespace holds
only the tables, because `groundnote.config` imports `impulses.config`, and the capability
layer imports `groundnote.config`.
"""

from groundnote.store import Subsystem, load_migrations

SUBSYSTEM = Subsystem("impulses", load_migrations("groundnote.impulses", "impulses"))

__all__ = ["SUBSYSTEM"]
