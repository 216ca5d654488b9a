"""Persons in instance.db: the people who decide on the approval channel.

A person is `person:<name>` with an email identity (recorded with every review). Persons
never hold a grant's token: they sign in with a one-time link and act through a session
(`auth/sessions.py`), or, hosted, with a JWT of the approval audience (`auth/tokens.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundnote.auth.principal import Principal, Right
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.store.database import Database
from groundnote.store.sql import IntegrityError, Row

__all__ = ["PersonInfo", "add_person", "find_person", "list_persons", "person_principal"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}\Z")
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+\Z")


@dataclass(frozen=True)
class PersonInfo:
    id: str
    email: str
    org: str
    created_at: str
    disabled_at: str | None


def _info(row: Row) -> PersonInfo:
    return PersonInfo(
        id=row["id"],
        email=row["email"],
        org=row["org"],
        created_at=row["created_at"],
        disabled_at=row["disabled_at"],
    )


def person_id(name: str) -> str:
    return name if name.startswith("person:") else f"person:{name}"


def add_person(db: Database, name: str, *, email: str, org: str, now: str) -> PersonInfo:
    """Register a person who may decide on the approval pages."""
    if not _NAME.match(name):
        raise ValidationFailed(
            f"person name {name!r} is not allowed; use lowercase letters, digits, '.', '_' and '-'"
        )
    if not _EMAIL.match(email):
        raise ValidationFailed(f"{email!r} is not an email address; give one like ruth@example.org")
    try:
        with db.write() as conn:
            conn.execute(
                "INSERT INTO person (id, email, org, created_at) VALUES (?, ?, ?, ?)",
                (f"person:{name}", email, org, now),
            )
    except IntegrityError as exc:
        raise ValidationFailed(
            f"a person named {name!r} exists already",
            remedy="Choose another name; `groundnote person list` shows the persons.",
        ) from exc
    return find_person(db, name)


def find_person(db: Database, name: str) -> PersonInfo:
    with db.read() as conn:
        row = conn.execute("SELECT * FROM person WHERE id = ?", (person_id(name),)).fetchone()
    if row is None:
        raise NotFound(
            f"no person {person_id(name)}",
            remedy="`groundnote person list` shows the persons; `groundnote person add` adds one.",
        )
    return _info(row)


def list_persons(db: Database) -> list[PersonInfo]:
    with db.read() as conn:
        return [_info(r) for r in conn.execute("SELECT * FROM person ORDER BY id")]


def person_principal(info: PersonInfo) -> Principal:
    """A person acts only on the approval channel, and decides on every scope of the home."""
    return Principal(
        id=info.id,
        org=info.org,
        channels=frozenset({"approval"}),
        rights={"*": Right.DECIDE},
        identity=info.email,
    )
