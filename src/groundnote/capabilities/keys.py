"""Idempotency keys: a write retried with its key is answered, not done again (issue 15.9).

A caller who lost the answer to a write (a crash between commit and answer, a dropped
connection) cannot tell whether it happened. With a key, the registry opens the write
transaction of the call's one scope before the handler runs, looks the key up inside it, and
records key, input hash and answer in that same transaction: the key exists exactly when the
write does, and two calls with one key are served one after the other by the write gate.
A retry with the same key and input gets the first answer; with other input, a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundnote.domain.errors import IdempotencyConflict
from groundnote.store.home import Subsystem
from groundnote.store.migrations import load_migrations
from groundnote.store.sql import Connection
from groundnote.store.transfer import Table

__all__ = [
    "CALLS_SUBSYSTEM",
    "CALL_KEYS",
    "KEY_FIELD",
    "HeldWrite",
    "first_answer",
    "record_answer",
]

CALLS_SUBSYSTEM = Subsystem("calls", load_migrations("groundnote.capabilities", "calls"))

# An export carries the keys; an import under another scope name leaves them out, since each
# answer names the exported scope's ids (a retry there is a new call).
CALL_KEYS = Table("call_key", order="actor, key", same_owner_only=True)

# The input field that carries the key; the HTTP header Idempotency-Key fills it.
KEY_FIELD = "idempotency_key"


@dataclass
class HeldWrite:
    """The write transaction a keyed call holds on its scope from lookup to answer."""

    scope: str
    conn: Connection


def first_answer(conn: Connection, actor: str, key: str, operation: str, digest: str) -> str | None:
    """The answer a call with this key got, or None for a new key; a conflict when the key
    was used with another operation or input."""
    row = conn.execute(
        "SELECT operation, input_sha256, answer FROM call_key WHERE actor = ? AND key = ?",
        (actor, key),
    ).fetchone()
    if row is None:
        return None
    if row["operation"] != operation or row["input_sha256"] != digest:
        raise IdempotencyConflict(
            f"The Idempotency-Key {key!r} was used before for a different request "
            f"({row['operation']}); it is not done again.",
        )
    return str(row["answer"])


def record_answer(
    conn: Connection,
    actor: str,
    key: str,
    operation: str,
    digest: str,
    answer: str,
    at: str,
) -> None:
    conn.execute(
        "INSERT INTO call_key (actor, key, operation, input_sha256, answer, at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (actor, key, operation, digest, answer, at),
    )
