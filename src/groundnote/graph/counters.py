"""The counters graph/0007's triggers keep with every write (issue 18): what a scope holds and
what waits in it, read by the explorer and approval pages in one lookup instead of a count of
whole views; and the same counts as queries over the truth, so that `groundnote check` finds a
counter that drifted and `groundnote rebuild counters` sets it right.

`tally` holds name → count: 'entities:<type>' and 'top_level' (current entities, archived ones
left out), 'rules:<status>', 'sources:<kind>', 'pending:entity', 'pending:link'. `log_tally`
counts the operation log by actor and operation. `pending_item` is what waits, newest first.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundnote.graph.queries import PENDING_LINKS_SQL, PENDING_VERSIONS_SQL
from groundnote.store import Database
from groundnote.store.sql import Connection

__all__ = [
    "LogCount",
    "PendingKey",
    "counter_drift",
    "fill_counters",
    "log_counts",
    "pending_page",
    "rebuild_counters",
    "tallies",
]

_PENDING_ENTITIES = (
    f"SELECT 'entity' AS kind, p.id, max(p.changed_at) AS at FROM ({PENDING_VERSIONS_SQL}) p "
    "GROUP BY p.id"
)
_PENDING_LINKS = f"SELECT 'link' AS kind, p.id, p.created_at AS at FROM ({PENDING_LINKS_SQL}) p"
_PENDING = f"{_PENDING_ENTITIES} UNION ALL {_PENDING_LINKS}"

# Every tally as the truth gives it, the pending ones from the pending items (`fill_counters`)
# or from the definition of pending itself (`counter_drift`).
_COUNTED = """SELECT 'entities:' || type AS name, count(*) AS n FROM entity_current
  WHERE status <> 'archived' GROUP BY type
UNION ALL SELECT 'top_level', count(*) FROM entity_current
  WHERE status <> 'archived' AND parent_id IS NULL
UNION ALL SELECT 'rules:' || status, count(*) FROM rule_state GROUP BY status
UNION ALL SELECT 'sources:' || kind, count(*) FROM source GROUP BY kind
UNION ALL SELECT 'pending:' || q.kind, count(*) FROM ({pending}) q GROUP BY q.kind"""
_LOG_COUNTED = (
    "SELECT grant_id, operation, count(*) AS n FROM search_log GROUP BY grant_id, operation"
)


@dataclass(frozen=True)
class PendingKey:
    at: str
    id: str
    kind: str  # 'entity' or 'link'


@dataclass(frozen=True)
class LogCount:
    actor: str
    operation: str
    n: int


def tallies(conn: Connection) -> dict[str, int]:
    """Every counter of the scope; a name never counted is absent (read it as 0)."""
    return {str(r[0]): int(r[1]) for r in conn.execute("SELECT name, n FROM tally")}


def pending_page(conn: Connection, *, limit: int, offset: int = 0) -> list[PendingKey]:
    """What waits, newest first (ties by id, then kind, descending), one page of it."""
    rows = conn.execute(
        "SELECT at, id, kind FROM pending_item ORDER BY at DESC, id DESC, kind DESC "
        "LIMIT ? OFFSET ?",
        (limit, offset),
    ).fetchall()
    return [PendingKey(at=r[0], id=r[1], kind=r[2]) for r in rows]


def log_counts(conn: Connection) -> list[LogCount]:
    rows = conn.execute(
        "SELECT grant_id, operation, n FROM log_tally WHERE n > 0 ORDER BY grant_id, operation"
    ).fetchall()
    return [LogCount(actor=r[0], operation=r[1], n=int(r[2])) for r in rows]


def fill_counters(conn: Connection) -> int:
    """Recompute every counter from the truth inside the caller's write; the counters set."""
    # Each as WITH … INSERT … SELECT, not INSERT … SELECT FROM (subquery): Citus 13.2
    # deparses the latter, with its GROUP BY, into invalid SQL for the worker.
    conn.execute("DELETE FROM pending_item")
    conn.execute(
        f"WITH p AS ({_PENDING}) INSERT INTO pending_item (kind, id, at) SELECT kind, id, at FROM p"
    )
    conn.execute("DELETE FROM tally")
    counted = _COUNTED.format(pending="SELECT kind FROM pending_item")
    conn.execute(
        f"WITH c AS ({counted}) INSERT INTO tally (name, n) SELECT name, n FROM c WHERE n > 0"
    )
    conn.execute("DELETE FROM log_tally")
    conn.execute(
        f"WITH c AS ({_LOG_COUNTED}) "
        "INSERT INTO log_tally (grant_id, operation, n) SELECT grant_id, operation, n FROM c"
    )
    tally: int = conn.execute("SELECT count(*) FROM tally").fetchone()[0]
    logged: int = conn.execute("SELECT count(*) FROM log_tally").fetchone()[0]
    return tally + logged


def rebuild_counters(db: Database) -> int:
    with db.write() as conn:
        return fill_counters(conn)


def counter_drift(db: Database, scope: str) -> list[str]:
    """Each counter that differs from what the truth counts (none: all equal)."""
    remedy = f"run `groundnote rebuild counters --scope {scope}`"
    with db.read() as conn:
        kept = {k: v for k, v in tallies(conn).items() if v}
        truth = {
            str(r[0]): int(r[1])
            for r in conn.execute(_COUNTED.format(pending=_PENDING))
            if int(r[1])
        }
        kept_log = {(c.actor, c.operation): c.n for c in log_counts(conn)}
        truth_log = {(str(r[0]), str(r[1])): int(r[2]) for r in conn.execute(_LOG_COUNTED)}
        waiting = {tuple(r) for r in conn.execute("SELECT kind, id, at FROM pending_item")}
        should = {tuple(r) for r in conn.execute(f"SELECT kind, id, at FROM ({_PENDING}) p")}
    problems = [
        f"counter {name} says {kept.get(name, 0)}, the store holds {truth.get(name, 0)}; {remedy}"
        for name in sorted(kept.keys() | truth.keys())
        if kept.get(name, 0) != truth.get(name, 0)
    ]
    wrong_log = sorted(
        k for k in kept_log.keys() | truth_log.keys() if kept_log.get(k) != truth_log.get(k)
    )
    if wrong_log:
        actor, operation = wrong_log[0]
        problems.append(
            f"the operation log's counts differ for {len(wrong_log)} actor and operation pairs "
            f"(first: {actor}, {operation}); {remedy}"
        )
    if waiting != should:
        problems.append(
            f"pending_item lacks {len(should - waiting)} and holds {len(waiting - should)} "
            f"items beside what waits; {remedy}"
        )
    return problems
