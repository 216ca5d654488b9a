"""Grants, rights per operation, bearer tokens; persons, their login links and sessions."""

from groundnote.auth.grants import (
    GrantInfo,
    create_grant,
    find_by_token,
    list_grants,
    parse_scope_rights,
    revoke_grant,
)
from groundnote.auth.persons import (
    PersonInfo,
    add_person,
    find_person,
    list_persons,
    person_principal,
)
from groundnote.auth.principal import CHANNELS, LOCAL_OPERATOR, Principal, Right, parse_right
from groundnote.auth.scopes import close_scopes, refuse_scope
from groundnote.auth.sessions import (
    PersonSession,
    csrf_matches,
    end_session,
    issue_login_link,
    redeem_login_link,
    session_of,
)
from groundnote.auth.tokens import (
    API_AUDIENCE,
    APPROVAL_AUDIENCE,
    authenticate,
    person_from_jwt,
    presented_principal,
)

__all__ = [
    "API_AUDIENCE",
    "APPROVAL_AUDIENCE",
    "CHANNELS",
    "LOCAL_OPERATOR",
    "GrantInfo",
    "PersonInfo",
    "PersonSession",
    "Principal",
    "Right",
    "add_person",
    "authenticate",
    "close_scopes",
    "create_grant",
    "csrf_matches",
    "end_session",
    "find_by_token",
    "find_person",
    "issue_login_link",
    "list_grants",
    "list_persons",
    "parse_right",
    "parse_scope_rights",
    "person_from_jwt",
    "person_principal",
    "presented_principal",
    "redeem_login_link",
    "refuse_scope",
    "revoke_grant",
    "session_of",
]
