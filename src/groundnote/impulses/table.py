"""The impulse table: insert, read, and the expiry sweep, each firing its lifecycle event.

Audit records (`conceptUpkeepAuditLog`) are persistent unless `impulses.audit_ttl_seconds`
sets a retention; rows with a past `expires_at` are removed by `prune_expired_impulses`, which
`serve` runs every `impulses.prune_interval_seconds` (see `prune_periodically`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from groundnote.domain.clock import format_instant
from groundnote.domain.errors import NotFound
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.session import Session, new_id, row_dict
from groundnote.store.home import Home
from groundnote.store.sql import Row

__all__ = [
    "Impulse",
    "get_impulse",
    "insert_impulse",
    "instant_after",
    "prune_expired_impulses",
    "prune_periodically",
]

log = logging.getLogger("groundnote.impulses")


class Impulse(BaseModel):
    id: str
    pointer: dict[str, Any]
    shape: str
    summary: str | None
    content: str | None
    metadata: dict[str, Any] | None
    org_id: str
    project_id: str | None
    created_at: str
    created_by_activity_id: str | None
    created_by_resolver_id: str | None
    expires_at: str | None


def _impulse(row: Row) -> Impulse:
    return Impulse.model_validate(row_dict(row, json_columns=("pointer", "metadata")))


def instant_after(instant: str, seconds: int) -> str:
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return format_instant(moment)


def insert_impulse(
    s: Session,
    *,
    shape: str,
    pointer: dict[str, Any],
    summary: str | None = None,
    content: str | None = None,
    metadata: dict[str, Any] | None = None,
    project_id: str | None = None,
    created_by_activity_id: str | None = None,
    created_by_resolver_id: str | None = None,
    expires_at: str | None = None,
) -> Impulse:
    impulse = Impulse(
        id=new_id("impulse"),
        pointer=pointer,
        shape=shape,
        summary=summary,
        content=content,
        metadata=metadata,
        org_id=s.org,
        project_id=project_id,
        created_at=s.now,
        created_by_activity_id=created_by_activity_id,
        created_by_resolver_id=created_by_resolver_id,
        expires_at=expires_at,
    )
    s.conn.execute(
        "INSERT INTO impulse (id, pointer, shape, summary, content, metadata, org_id, project_id, "
        "created_at, created_by_activity_id, created_by_resolver_id, expires_at) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            impulse.id,
            json.dumps(pointer, default=str),
            shape,
            summary,
            content,
            None if metadata is None else json.dumps(metadata),
            s.org,
            project_id,
            s.now,
            created_by_activity_id,
            created_by_resolver_id,
            expires_at,
        ),
    )
    s.fire("impulse:created", impulse=impulse.model_dump())
    return impulse


def get_impulse(s: Session, impulse_id: str) -> Impulse:
    row = s.conn.execute(
        "SELECT * FROM impulse WHERE id = ? AND org_id = ?", (impulse_id, s.org)
    ).fetchone()
    if row is None:
        raise NotFound(
            f"No impulse {impulse_id} in your org.",
            remedy="Use an auditImpulseId returned by a write shape; expired impulses are gone.",
        )
    impulse = _impulse(row)
    s.fire("impulse:resolved", impulse=impulse.model_dump())
    return impulse


def prune_expired_impulses(home: Home, *, org: str | None = None) -> int:
    """Delete impulses whose expires_at has passed (of one org, or of all); rows without stay."""
    now = home.clock.instant()
    with home.instance.write() as conn:
        rows = conn.execute(
            "DELETE FROM impulse WHERE expires_at IS NOT NULL AND expires_at < ? "
            "AND (? IS NULL OR org_id = ?) RETURNING *",
            (now, org, org),
        ).fetchall()
    lifecycle(home).emit(
        [
            LifecyclePayload(
                event="impulse:expired", org_id=r["org_id"], impulse=_impulse(r).model_dump()
            )
            for r in rows
        ]
    )
    return len(rows)


async def prune_periodically(home: Home, interval_seconds: float) -> None:
    """Run the sweep for ever, every `interval_seconds`; `serve` starts and cancels it."""
    while True:
        await asyncio.sleep(interval_seconds)
        try:
            removed = await asyncio.to_thread(prune_expired_impulses, home)
        except Exception:
            log.exception("the impulse expiry sweep failed; it runs again in %ss", interval_seconds)
        else:
            if removed:
                log.info("impulse expiry sweep removed %d impulses", removed)
