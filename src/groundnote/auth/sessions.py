"""One-time login links and sessions of persons on the approval pages.

A link's token is good once and for a short while; redeeming it opens a session whose token
travels only in an HttpOnly, SameSite=Strict cookie. Each session has its own CSRF token,
which every form carries and every POST must present. Only hashes of the link and session
tokens are stored, so a copy of instance.db opens no session.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from groundnote.auth.persons import PersonInfo, find_person, person_principal
from groundnote.auth.principal import Principal
from groundnote.domain.clock import Clock, format_instant
from groundnote.store.database import Database
from groundnote.store.sql import Row

__all__ = [
    "LOGIN_LINK_TTL",
    "SESSION_TTL",
    "PersonSession",
    "csrf_matches",
    "end_session",
    "issue_login_link",
    "redeem_login_link",
    "session_of",
]

LOGIN_LINK_TTL = timedelta(hours=24)
SESSION_TTL = timedelta(hours=12)


@dataclass(frozen=True)
class PersonSession:
    token: str  # the cookie value; shown to the browser only
    csrf: str
    principal: Principal
    expires_at: str


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_login_link(db: Database, name: str, clock: Clock, ttl: timedelta = LOGIN_LINK_TTL) -> str:
    """A new one-time login token for a person; it is not stored and cannot be shown again."""
    person = find_person(db, name)
    token = secrets.token_urlsafe(32)
    now = clock.now()
    with db.write() as conn:
        conn.execute(
            "INSERT INTO person_login (token_sha256, person_id, created_at, expires_at) "
            "VALUES (?, ?, ?, ?)",
            (_hash(token), person.id, format_instant(now), format_instant(now + ttl)),
        )
    return token


def redeem_login_link(
    db: Database, token: str, clock: Clock, ttl: timedelta = SESSION_TTL
) -> PersonSession | None:
    """Open a session with a login token; None when it is unknown, used, expired or disabled."""
    now = clock.now()
    instant = format_instant(now)
    session_token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    expires_at = format_instant(now + ttl)
    live = (
        "SELECT l.person_id FROM person_login l JOIN person p ON p.id = l.person_id "
        "WHERE l.token_sha256 = ? AND l.used_at IS NULL AND l.expires_at > ? "
        "AND p.disabled_at IS NULL"
    )
    # A token that opens nothing is answered from a read: a stream of bad ones never takes
    # the write gate another writer waits for. A good one is checked again under the gate.
    with db.read() as conn:
        if conn.execute(live, (_hash(token), instant)).fetchone() is None:
            return None
    with db.write() as conn:
        row = conn.execute(live, (_hash(token), instant)).fetchone()
        if row is None:
            return None
        conn.execute(
            "UPDATE person_login SET used_at = ? WHERE token_sha256 = ?", (instant, _hash(token))
        )
        conn.execute(
            "INSERT INTO person_session (token_sha256, person_id, csrf, created_at, expires_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (_hash(session_token), row["person_id"], csrf, instant, expires_at),
        )
        person_id = str(row["person_id"])
    principal = person_principal(find_person(db, person_id))
    return PersonSession(session_token, csrf, principal, expires_at)


def session_of(db: Database, token: str | None, now: str) -> PersonSession | None:
    """The live session behind a cookie value, or None (fail closed)."""
    if not token:
        return None
    with db.read() as conn:
        row: Row | None = conn.execute(
            "SELECT s.csrf, s.expires_at, p.* FROM person_session s "
            "JOIN person p ON p.id = s.person_id WHERE s.token_sha256 = ? "
            "AND s.ended_at IS NULL AND s.expires_at > ? AND p.disabled_at IS NULL",
            (_hash(token), now),
        ).fetchone()
    if row is None:
        return None
    person = PersonInfo(row["id"], row["email"], row["org"], row["created_at"], None)
    return PersonSession(token, row["csrf"], person_principal(person), row["expires_at"])


def csrf_matches(session: PersonSession, presented: str | None) -> bool:
    return bool(presented) and hmac.compare_digest(session.csrf, presented or "")


def end_session(db: Database, token: str, now: str) -> None:
    with db.write() as conn:
        conn.execute(
            "UPDATE person_session SET ended_at = ? WHERE token_sha256 = ? AND ended_at IS NULL",
            (now, _hash(token)),
        )
