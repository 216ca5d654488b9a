"""Grants, rights per operation, bearer tokens."""

from groundnote.auth.grants import (
    GrantInfo,
    create_grant,
    find_by_token,
    list_grants,
    parse_scope_rights,
    revoke_grant,
)
from groundnote.auth.principal import CHANNELS, LOCAL_OPERATOR, Principal, Right, parse_right
from groundnote.auth.tokens import API_AUDIENCE, APPROVAL_AUDIENCE, authenticate, person_from_jwt

__all__ = [
    "API_AUDIENCE",
    "APPROVAL_AUDIENCE",
    "CHANNELS",
    "LOCAL_OPERATOR",
    "GrantInfo",
    "Principal",
    "Right",
    "authenticate",
    "create_grant",
    "find_by_token",
    "list_grants",
    "parse_right",
    "parse_scope_rights",
    "person_from_jwt",
    "revoke_grant",
]
