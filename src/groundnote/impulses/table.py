"""The impulse table: insert, read, and the expiry sweep, each firing its lifecycle event.

Audit records (`conceptUpkeepAuditLog`) are persistent unless `impulses.audit_ttl_seconds`
sets a retention; rows with a past `expires_at` are removed by `prune_expired_impulses`, which
`serve` runs every `impulses.prune_interval_seconds` (see `prune_periodically`): once per
interval across every process and app server of the home, whose turn is a row of the database
(`impulse_sweep`), not a timer of one process.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from groundnote.domain.clock import format_instant
from groundnote.domain.errors import NotFound
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.session import Session, new_id, row_dict
from groundnote.store.home import Home
from groundnote.store.sql import Connection, Row

__all__ = [
    "Impulse",
    "Swept",
    "get_impulse",
    "insert_impulse",
    "instant_after",
    "prune_expired_impulses",
    "prune_periodically",
    "sweep_if_due",
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


def _instant_before(instant: str, seconds: float) -> str:
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00")) - timedelta(seconds=seconds)
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
        rows = _delete_expired(conn, now, org)
    _announce(home, rows)
    return len(rows)


@dataclass(frozen=True)
class Swept:
    """A periodic sweep this process ran: when its turn began, and how many it removed."""

    at: str
    removed: int


def sweep_if_due(home: Home, interval_seconds: float) -> Swept | None:
    """The periodic sweep, if it is this process's turn: when the last sweep of any process
    on the database began at least `interval_seconds` ago, take the turn and sweep in the same
    transaction (a failed sweep gives the turn back); None when another process has swept
    within the interval. Two processes asking at once: the conditional
    UPDATE lets one through (SQLite serialises the writes; PostgreSQL re-checks the row the
    other committed)."""
    now = home.clock.instant()
    with home.instance.write() as conn:
        taken = conn.execute(
            "UPDATE impulse_sweep SET last_at = ?, runs = runs + 1 "
            "WHERE name = 'expiry' AND last_at <= ? RETURNING runs",
            (now, _instant_before(now, interval_seconds)),
        ).fetchone()
        if taken is None:
            return None
        rows = _delete_expired(conn, now, None)
    _announce(home, rows)
    return Swept(now, len(rows))


def _delete_expired(conn: Connection, now: str, org: str | None) -> list[Row]:
    # Two statements rather than `? IS NULL OR org_id = ?`: PostgreSQL cannot type a
    # parameter that is only compared with NULL.
    if org is None:
        return conn.execute(
            "DELETE FROM impulse WHERE expires_at IS NOT NULL AND expires_at < ? RETURNING *",
            (now,),
        ).fetchall()
    return conn.execute(
        "DELETE FROM impulse WHERE expires_at IS NOT NULL AND expires_at < ? AND org_id = ? "
        "RETURNING *",
        (now, org),
    ).fetchall()


def _announce(home: Home, rows: list[Row]) -> None:
    lifecycle(home).emit(
        [
            LifecyclePayload(
                event="impulse:expired", org_id=r["org_id"], impulse=_impulse(r).model_dump()
            )
            for r in rows
        ]
    )


async def prune_periodically(home: Home, interval_seconds: float) -> None:
    """Offer to sweep for ever, every `interval_seconds`; `serve` starts and cancels it. Every
    server offers; `sweep_if_due` lets one of them sweep per interval."""
    while True:
        await asyncio.sleep(interval_seconds)
        try:
            swept = await asyncio.to_thread(sweep_if_due, home, interval_seconds)
        except Exception:
            log.exception("the impulse expiry sweep failed; it runs again in %ss", interval_seconds)
        else:
            if swept is not None and swept.removed:
                log.info("impulse expiry sweep removed %d impulses", swept.removed)
