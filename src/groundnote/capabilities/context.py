"""What a handler gets besides its input: who calls, on which channel, the home, the clock."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from groundnote.auth.principal import Principal
from groundnote.config import Config
from groundnote.domain.clock import Clock
from groundnote.domain.progress import Progress
from groundnote.store.database import Database
from groundnote.store.home import Home
from groundnote.store.oplog import OpLogEntry, write_entry

if TYPE_CHECKING:
    from groundnote.capabilities.declaration import Capability

__all__ = ["Context"]


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

    @property
    def clock(self) -> Clock:
        return self.home.clock

    @property
    def actor(self) -> str:
        """The id recorded as who did it: `grant:<name>` or `person:<name>`."""
        return self.principal.id if self.principal else "anonymous"

    def today(self) -> str:
        return self.clock.today(self.config.zone)

    def scope_db(self, scope: str) -> Database:
        return self.home.scope_db(scope)

    @contextmanager
    def write(self, scope: str) -> Iterator[sqlite3.Connection]:
        """One write transaction on a scope file; the call's log row commits with it."""
        db = self.home.scope_db(scope)
        with db.write() as conn:
            yield conn
            if self.capability.log_operation and not self.log.written:
                write_entry(
                    conn,
                    self.log,
                    at=self.clock.instant(),
                    grant_id=self.actor,
                    channel=self.channel,
                    operation=self.capability.log_operation,
                    outcome="ok",
                    input_sha256=self.input_sha256,
                )

    def public_url(self) -> str:
        if self.config.public_url:
            return self.config.public_url.rstrip("/")
        return f"http://{self.config.server.host}:{self.config.server.port}"
