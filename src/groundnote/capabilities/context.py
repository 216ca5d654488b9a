"""What a handler gets besides its input: who calls, on which channel, which scopes the registry
admitted, the home, the clock and the parts the composition root built."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from groundnote.auth.principal import Principal, Right
from groundnote.capabilities.keys import HeldWrite
from groundnote.config import Config, url_for
from groundnote.domain.clock import Clock
from groundnote.domain.progress import Progress
from groundnote.store.database import Database
from groundnote.store.home import Home
from groundnote.store.oplog import OpLogEntry, write_entry
from groundnote.store.sql import Connection

if TYPE_CHECKING:
    from groundnote.capabilities.declaration import Capability

__all__ = ["Context", "Services", "public_url", "reachable"]

T = TypeVar("T")


class Services:
    """The parts the composition root (`runtime.py`) builds and hands to handlers, one per type:
    e.g. core's search composition with the graph's bundle providers in it."""

    def __init__(self, *parts: object) -> None:
        self._parts: dict[type, object] = {type(p): p for p in parts}

    def get(self, kind: type[T]) -> T:
        found = self._parts.get(kind)
        if not isinstance(found, kind):
            raise LookupError(f"this runtime was composed without a {kind.__name__}")
        return found


def public_url(config: Config) -> str:
    """Where this instance is reached, for the links answers carry."""
    if config.public_url:
        return config.public_url.rstrip("/")
    return url_for(config.server.host, config.server.port)


def reachable(home: Home, principal: Principal | None, right: Right) -> tuple[str, ...]:
    """Every scope of the home the principal holds `right` (or more) on."""
    if principal is None:
        return ()
    return tuple(
        s
        for s in home.scope_names()
        if (held := principal.right_on(s)) is not None and held >= right
    )


@dataclass
class Context:
    home: Home
    config: Config
    principal: Principal | None
    channel: str
    capability: Capability  # type: ignore[type-arg]
    input_sha256: str
    request_id: str
    log: OpLogEntry = field(default_factory=OpLogEntry)
    # Long work reports through it; the command line draws a bar, other channels pass None.
    progress: Progress | None = None
    services: Services = field(default_factory=Services)
    # The scopes the registry admitted the call on (its tenancy): the ones the input named, or,
    # where it named none, every scope the grant holds the capability's right on.
    scopes: tuple[str, ...] = ()
    # The operation name of the call's row in instance.db's log (a surface that serves many
    # capabilities under one endpoint names its own); the scope log uses `log_operation`.
    logged_as: str = ""
    # What the transport carried besides the input, e.g. an activity execution id header.
    meta: Mapping[str, str] = field(default_factory=dict)
    # A call with an idempotency key runs inside the write transaction the registry holds on
    # its scope (capabilities/keys.py); `write` on that scope joins it.
    held: HeldWrite | None = None

    @property
    def clock(self) -> Clock:
        return self.home.clock

    @property
    def actor(self) -> str:
        """The id recorded as who did it: `grant:<name>` or `person:<name>`."""
        return self.principal.id if self.principal else "anonymous"

    @property
    def org(self) -> str | None:
        """The caller's organisation; None for a call without credentials."""
        return self.principal.org if self.principal else None

    def reachable_scopes(self) -> tuple[str, ...]:
        """Every scope the grant holds this capability's right on, for a call that reads beyond
        the scope it names (a rollup across every readable scope); never more than that."""
        return reachable(self.home, self.principal, self.capability.right)

    def today(self) -> str:
        return self.clock.today(self.config.zone)

    def scope_db(self, scope: str) -> Database:
        return self.home.scope_db(scope)

    def _log_fields(self) -> dict[str, Any]:
        return {
            "at": self.clock.instant(),
            "grant_id": self.actor,
            "channel": self.channel,
            "outcome": "ok",
            "input_sha256": self.input_sha256,
        }

    @contextmanager
    def write(self, scope: str) -> Iterator[Connection]:
        """One write transaction on a scope file; the call's log row commits with it."""
        if self.held is not None and self.held.scope == scope:
            yield self.held.conn
            self._write_log(self.held.conn)
            return
        with self.home.scope_db(scope).write() as conn:
            yield conn
            self._write_log(conn)

    def _write_log(self, conn: Connection) -> None:
        if self.capability.log_operation and not self.log.written:
            write_entry(
                conn, self.log, operation=self.capability.log_operation, **self._log_fields()
            )

    @contextmanager
    def write_instance(self) -> Iterator[Connection]:
        """One write transaction on instance.db; a call logged there commits its row with it."""
        with self.home.instance.write() as conn:
            yield conn
            if self.capability.log_operation is None and not self.log.written:
                write_entry(conn, self.log, operation=self.logged_as, **self._log_fields())

    def public_url(self) -> str:
        return public_url(self.config)
