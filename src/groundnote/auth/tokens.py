"""Bearer tokens: Groundnote API keys, or JWTs (PyJWT) for hosted use. Both fail closed."""

from __future__ import annotations

from typing import Any

import jwt

from groundnote.auth.grants import find_by_token
from groundnote.auth.principal import CHANNELS, Principal, Right, parse_right
from groundnote.config import AuthConfig
from groundnote.domain.errors import token_refused
from groundnote.store.database import Database

__all__ = [
    "API_AUDIENCE",
    "APPROVAL_AUDIENCE",
    "authenticate",
    "person_from_jwt",
    "presented_principal",
]

API_AUDIENCE = "groundnote-api"
APPROVAL_AUDIENCE = "groundnote-approval"


def _claims(
    token: str | None, config: AuthConfig, audience: str, *required: str
) -> dict[str, Any] | None:
    """The verified claims of a JWT for `audience`, or None: no secret configured, a bad
    signature, a wrong audience or issuer, expiry, or a required claim missing."""
    if not token or not config.jwt_secret:
        return None
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            config.jwt_secret,
            algorithms=["HS256"],
            audience=audience,
            issuer=config.jwt_issuer,
            options={"require": ["exp", "sub", "aud", *required]},
        )
    except jwt.PyJWTError:
        return None
    return claims


def _from_jwt(token: str, config: AuthConfig) -> Principal | None:
    claims = _claims(token, config, API_AUDIENCE)
    if claims is None:
        return None
    try:
        rights = {
            scope: parse_right(right)
            for scope, right in (item.split(":", 1) for item in claims.get("scopes", []))
        }
    except ValueError:
        return None
    channels = [
        c for c in claims.get("channels", ["mcp", "api"]) if c in CHANNELS and c != "approval"
    ]
    return Principal(
        id=f"grant:jwt:{claims['sub']}",
        org=str(claims.get("org_id", "local")),
        channels=frozenset(channels),
        rights=rights,
    )


def authenticate(
    instance: Database, token: str | None, config: AuthConfig, now: str
) -> Principal | None:
    """The principal behind a bearer token, or None: unknown, expired or unverifiable is anonymous."""
    if not token:
        return None
    if token.count(".") == 2:
        return _from_jwt(token, config)
    return find_by_token(instance, token, now)


def presented_principal(
    instance: Database, token: str | None, config: AuthConfig, now: str
) -> Principal | None:
    """None when no token is sent (anonymous); the grant behind a token; and for a token no
    live grant has, the refusal that says so (auth-required: unknown, revoked or expired)."""
    if not token:
        return None
    principal = authenticate(instance, token, config, now)
    if principal is None:
        raise token_refused()
    return principal


def person_from_jwt(token: str | None, config: AuthConfig) -> Principal | None:
    """A person on the approval channel from a JWT with the approval audience (hosted use)."""
    claims = _claims(token, config, APPROVAL_AUDIENCE, "email")
    if claims is None:
        return None
    return Principal(
        id=f"person:{claims['sub']}",
        org=str(claims.get("org_id", "local")),
        channels=frozenset({"approval"}),
        rights={"*": Right.DECIDE},
        identity=str(claims["email"]),
    )
