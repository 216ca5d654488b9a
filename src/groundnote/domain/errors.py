"""One error tree for every surface.

    GroundnoteError                      code                 status
    ├── ValidationFailed                 validation-failed      400
    ├── ReasonMissing                    reason-missing         400
    ├── ScopeMismatch                    scope-mismatch         400
    ├── AuthRequired                     auth-required          401
    ├── ScopeNotAllowed                  scope-not-allowed      403
    ├── ChannelNotAllowed                channel-not-allowed    403
    ├── RightMissing                     right-missing          403
    ├── NotFound                         not-found              404
    ├── ReferenceUnknown                 reference-unknown      404
    ├── Conflict (409)
    │   ├── DuplicateCandidate           duplicate-candidate
    │   ├── Cycle                        cycle
    │   ├── ParentArchived               parent-archived
    │   ├── HasChildren                  has-children
    │   ├── StateChanged                 state-changed
    │   ├── VersionOutdated              version-outdated
    │   ├── AlreadyDecided               already-decided
    │   ├── Cancelled                    cancelled
    │   └── IdempotencyConflict          idempotency-conflict
    ├── PayloadTooLarge                  payload-too-large      413
    ├── DepthLimit                       depth-limit            422
    ├── TooManyAttempts                  too-many-attempts      429
    ├── Internal                         internal               500
    └── Busy                             busy                   503

Each class knows its code, HTTP status and default remedy; an instance may carry a more
precise remedy, up to three `next` steps and the extras of seed 000 §8 (`candidates`,
`paths`, `limit`, `current`). `body()` is the one envelope every surface sends.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "AlreadyDecided",
    "AuthRequired",
    "Busy",
    "Cancelled",
    "ChannelNotAllowed",
    "Conflict",
    "Cycle",
    "DepthLimit",
    "DuplicateCandidate",
    "EmbedderUnavailable",
    "GroundnoteError",
    "HasChildren",
    "IdempotencyConflict",
    "Internal",
    "NotFound",
    "ParentArchived",
    "PayloadTooLarge",
    "ReasonMissing",
    "ReferenceUnknown",
    "RightMissing",
    "ScopeMismatch",
    "ScopeNotAllowed",
    "StateChanged",
    "TooManyAttempts",
    "ValidationFailed",
    "VersionOutdated",
    "decisions_belong_to_people",
    "error_classes",
    "from_backstop",
    "scope_refusal",
    "token_refused",
]


class GroundnoteError(Exception):
    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500
    default_remedy: ClassVar[str] = "Report this to the operator; the request was not completed."

    def __init__(
        self,
        message: str,
        *,
        remedy: str | None = None,
        next: list[dict[str, Any]] | None = None,
        **extras: Any,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy or self.default_remedy
        self.next = (next or [])[:3]
        self.extras = {k: v for k, v in extras.items() if v is not None}

    def body(self) -> dict[str, Any]:
        return {
            "error": self.code,
            "message": self.message,
            "remedy": self.remedy,
            "next": self.next,
            **self.extras,
        }


class ValidationFailed(GroundnoteError):
    code = "validation-failed"
    status = 400
    default_remedy = "Correct the input as the message says and call again."


class ReasonMissing(GroundnoteError):
    code = "reason-missing"
    status = 400
    default_remedy = "Give a reason that names the evidence and call again."


class ScopeMismatch(GroundnoteError):
    code = "scope-mismatch"
    status = 400
    default_remedy = "Links and parents exist only inside one scope; use ids of the scope you name."


class AuthRequired(GroundnoteError):
    code = "auth-required"
    status = 401
    default_remedy = "Send a valid token: `Authorization: Bearer <token>` (create one with `groundnote grant create`)."


class ScopeNotAllowed(GroundnoteError):
    code = "scope-not-allowed"
    status = 403
    default_remedy = (
        "Use a scope your grant names (list_scopes shows them), or ask the operator for a grant."
    )


class ChannelNotAllowed(GroundnoteError):
    code = "channel-not-allowed"
    status = 403
    default_remedy = (
        "This grant may not be used on this channel; ask the operator for a grant that allows it."
    )


class RightMissing(GroundnoteError):
    code = "right-missing"
    status = 403
    default_remedy = "This operation needs a higher right on the scope; ask the operator for it."


class NotFound(GroundnoteError):
    code = "not-found"
    status = 404
    default_remedy = "Check the id; list or search the scope to find the right one."


class ReferenceUnknown(GroundnoteError):
    code = "reference-unknown"
    status = 404
    default_remedy = "Name something that exists in this scope; resolve or search for it first."


class Conflict(GroundnoteError):
    code = "conflict"
    status = 409
    default_remedy = "Read the current state and decide again."


class DuplicateCandidate(Conflict):
    code = "duplicate-candidate"
    default_remedy = (
        "Use one of the candidates. Only if the person says the new one is different, "
        "call again with force: true and a reason."
    )


class Cycle(Conflict):
    code = "cycle"
    default_remedy = "The new parent lies inside the moved subtree; choose a parent outside it."


class ParentArchived(Conflict):
    code = "parent-archived"
    default_remedy = (
        "The parent is archived; choose an active parent (entity_resolve or entity_tree)."
    )


class HasChildren(Conflict):
    code = "has-children"
    default_remedy = "Archive the children first, or archive the whole subtree together."


class StateChanged(Conflict):
    code = "state-changed"
    default_remedy = (
        "The item changed since it was shown; reload and decide on the current version."
    )


class VersionOutdated(Conflict):
    code = "version-outdated"
    default_remedy = "Review the current version named in `current`."


class AlreadyDecided(Conflict):
    code = "already-decided"
    default_remedy = "A decision exists already; nothing to do."


class IdempotencyConflict(Conflict):
    code = "idempotency-conflict"
    default_remedy = (
        "Use a new Idempotency-Key for a new request; repeat a key only with the very input "
        "it was first sent with."
    )


class PayloadTooLarge(GroundnoteError):
    code = "payload-too-large"
    status = 413
    default_remedy = "Send less at once: split the input into smaller parts."


class DepthLimit(GroundnoteError):
    code = "depth-limit"
    status = 422
    default_remedy = "Ask for fewer levels and expand nodes step by step."


class Cancelled(Conflict):
    """The caller cancelled the call before its write committed (MCP `notifications/cancelled`);
    nothing was written."""

    code = "cancelled"
    default_remedy = "Nothing was written; call again if it is still wanted."


class TooManyAttempts(GroundnoteError):
    code = "too-many-attempts"
    status = 429
    default_remedy = (
        "Wait the seconds Retry-After names, then call again with a valid token or login link."
    )


class Internal(GroundnoteError):
    code = "internal"
    status = 500


class EmbedderUnavailable(GroundnoteError):
    """The configured embedding model cannot be loaded or reached (search.embedder)."""

    code = "embedder-unavailable"
    status = 503
    default_remedy = (
        "Fix the search section of groundnote.json as the message says, or set "
        '"search": {"semantic": "off"} to search by full text only.'
    )


class Busy(GroundnoteError):
    """Other writers held the store file longer than `store.busy_timeout_seconds`."""

    code = "busy"
    status = 503
    default_remedy = (
        "Retry the same call in a moment: other processes were writing the same scope and "
        "nothing of this call was written. If it keeps happening, the operator can raise "
        "store.busy_timeout_seconds."
    )


def error_classes() -> list[type[GroundnoteError]]:
    """Every concrete error class, for documentation and the envelope test."""
    found: list[type[GroundnoteError]] = []
    pending: list[type[GroundnoteError]] = [GroundnoteError]
    while pending:
        cls = pending.pop()
        if cls is not Conflict:
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return sorted(found, key=lambda c: c.code)


def scope_refusal(close: list[str] | None = None) -> ScopeNotAllowed:
    """The one refusal for a scope that is foreign, missing or forbidden.

    Its text never depends on which of the three it is, so an answer never reveals whether a
    scope exists. `close` names scopes the caller may use whose names are near the one asked
    for (a typo); the caller computes them from the grant's own scopes only, so they depend on
    the name typed and the grant, never on what else exists.
    """
    message = "This scope is not available to your grant."
    remedy = ScopeNotAllowed.default_remedy
    if close:
        names = ", ".join(close)
        message += f" Scopes of your grant with a similar name: {names}."
        remedy = f"Did you mean {close[0]}? Call again with that scope, or see list_scopes."
    return ScopeNotAllowed(
        message,
        remedy=remedy,
        next=[{"tool": "list_scopes", "why": "see the scopes your grant may use"}],
        close_scopes=close or None,
    )


def decisions_belong_to_people(operation: str, approval_url: str) -> ChannelNotAllowed:
    """A grant (an agent's or an integration's token) on a route of the approval channel."""
    return ChannelNotAllowed(
        f"{operation} is a decision, and decisions belong to people: a person makes it on the "
        f"approval page, {approval_url}. No grant's token can make it.",
        remedy=(
            f"Ask a person to decide on {approval_url} (`groundnote person link NAME` prints "
            "their one-time login link); an agent passes on the approval_url of what it proposed."
        ),
        approval_url=approval_url,
    )


def token_refused() -> AuthRequired:
    """A token was sent, but no live grant has it: distinct from sending none."""
    return AuthRequired(
        "The token is unknown, revoked or expired.",
        remedy=(
            "Check that the whole token was copied (it starts with gn_); `groundnote grant list` "
            "shows whether its grant is revoked or expired, and `groundnote grant create NAME "
            "--scope SCOPE:RIGHT` makes a new one (its token is shown once)."
        ),
    )


# Messages of the database's own refusals (RAISE in triggers, seed 000 §3), for the rare case
# where code did not check first and the backstop answered.
_BACKSTOP: dict[str, type[GroundnoteError]] = {
    "cycle": Cycle,
    "parent-archived": ParentArchived,
    "has-children": HasChildren,
    "state-changed": StateChanged,
    "version-gap": StateChanged,
    "terminal-state": StateChanged,
    "invalid-transition": StateChanged,
    "link-endpoint-unknown": ReferenceUnknown,
    "entity-archived": ReferenceUnknown,
}


def from_backstop(message: str) -> GroundnoteError | None:
    """The error for a trigger's RAISE message, or None when it is not one of ours."""
    cls = _BACKSTOP.get(message.strip())
    if cls is None:
        return None
    return cls(f"The database refused the write: {message.strip()}.")
