"""Grants in instance.db: created with a token shown once, verified by its hash, revocable."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass

from groundnote.auth.principal import CHANNELS, Principal, Right, parse_right
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.store.database import Database
from groundnote.store.sql import IntegrityError, Row

__all__ = [
    "GrantInfo",
    "create_grant",
    "find_by_token",
    "list_grants",
    "parse_scope_rights",
    "revoke_grant",
]

TOKEN_PREFIX = "gn_"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}\Z")


@dataclass(frozen=True)
class GrantInfo:
    id: str
    org: str
    channels: list[str]
    rights: dict[str, str]
    created_at: str
    expires_at: str | None
    revoked_at: str | None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_scope_rights(spec: str) -> dict[str, Right]:
    """`sales:propose,hr:read` (or `*:read`) → {scope: right}."""
    rights: dict[str, Right] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        scope, sep, right = part.partition(":")
        if not sep:
            raise ValidationFailed(f"{part!r} lacks a right; write SCOPE:RIGHT, e.g. sales:propose")
        try:
            rights[scope] = parse_right(right)
        except ValueError as exc:
            raise ValidationFailed(str(exc)) from exc
    return rights


def create_grant(
    db: Database,
    name: str,
    *,
    rights: dict[str, Right],
    channels: list[str],
    org: str,
    now: str,
    expires_at: str | None = None,
) -> tuple[GrantInfo, str]:
    """Create a grant; returns it with its token, which is not stored and cannot be shown again."""
    if not _NAME.match(name):
        raise ValidationFailed(
            f"grant name {name!r} is not allowed; use lowercase letters, digits, '.', '_' and '-'"
        )
    unknown = sorted(set(channels) - set(CHANNELS) - {"approval"})
    if unknown or not channels or "approval" in channels:
        raise ValidationFailed(
            f"channels {channels!r} are not allowed; choose from mcp, api, cli "
            "(the approval channel belongs to persons)"
        )
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    grant_id = f"grant:{name}"
    try:
        with db.write() as conn:
            conn.execute(
                "INSERT INTO grant_ (id, secret_sha256, org, channels, rights, created_at, expires_at)"
                " VALUES (?,?,?,?,?,?,?)",
                (
                    grant_id,
                    _hash(token),
                    org,
                    json.dumps(sorted(set(channels))),
                    json.dumps({s: r.label for s, r in rights.items()}, sort_keys=True),
                    now,
                    expires_at,
                ),
            )
    except IntegrityError as exc:
        raise ValidationFailed(
            f"a grant named {name!r} exists already",
            remedy="Choose another name, or revoke it first.",
        ) from exc
    return _info_by_id(db, grant_id), token


def _info(row: Row) -> GrantInfo:
    return GrantInfo(
        id=row["id"],
        org=row["org"],
        channels=json.loads(row["channels"]),
        rights=json.loads(row["rights"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        revoked_at=row["revoked_at"],
    )


def _info_by_id(db: Database, grant_id: str) -> GrantInfo:
    with db.read() as conn:
        row = conn.execute("SELECT * FROM grant_ WHERE id = ?", (grant_id,)).fetchone()
    if row is None:
        raise NotFound(f"no grant {grant_id}", remedy="`groundnote grant list` shows the grants.")
    return _info(row)


def list_grants(db: Database) -> list[GrantInfo]:
    with db.read() as conn:
        return [_info(r) for r in conn.execute("SELECT * FROM grant_ ORDER BY id")]


def revoke_grant(db: Database, name: str, now: str) -> GrantInfo:
    grant_id = name if name.startswith("grant:") else f"grant:{name}"
    with db.write() as conn:
        cursor = conn.execute(
            "UPDATE grant_ SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now, grant_id)
        )
    if cursor.rowcount == 0:
        _info_by_id(db, grant_id)  # raises not-found for an unknown grant
    return _info_by_id(db, grant_id)


def find_by_token(db: Database, token: str, now: str) -> Principal | None:
    """The grant behind an API key, or None when it is unknown, revoked or expired (fail closed)."""
    with db.read() as conn:
        row = conn.execute(
            "SELECT * FROM grant_ WHERE secret_sha256 = ?", (_hash(token),)
        ).fetchone()
    if row is None or row["revoked_at"] is not None:
        return None
    if row["expires_at"] is not None and row["expires_at"] <= now:
        return None
    return Principal(
        id=row["id"],
        org=row["org"],
        channels=frozenset(json.loads(row["channels"])),
        rights={s: parse_right(r) for s, r in json.loads(row["rights"]).items()},
    )
