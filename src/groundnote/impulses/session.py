"""One operation's view of the store: its connection, the caller's org, the time, its events.

Every function of the subsystem takes a Session, so no query can be written without the org
at hand; events are collected here and fired only after the transaction commits.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from groundnote.config import ImpulsesConfig
from groundnote.impulses.events import LifecycleEvent, LifecyclePayload
from groundnote.store.sql import Connection, Row

__all__ = ["Session", "new_id", "row_dict"]


def new_id(kind: str) -> str:
    return f"{kind}:{uuid.uuid4().hex[:20]}"


def row_dict(row: Row, *, json_columns: tuple[str, ...] = ("metadata",)) -> dict[str, Any]:
    out = dict(row)
    for name in json_columns:
        if name in out and out[name] is not None:
            out[name] = json.loads(out[name])
    return out


@dataclass
class Session:
    conn: Connection
    org: str
    now: str
    config: ImpulsesConfig
    events: list[LifecyclePayload] = field(default_factory=list)

    def fire(self, event: LifecycleEvent, **slots: dict[str, Any]) -> None:
        self.events.append(LifecyclePayload(event=event, org_id=self.org, **slots))
