"""The steps every call passes, in this order, before its handler runs:

    authenticate → channel → validate → tenancy and right → (handler) → (log)

Each step reads and fills one `Call` and raises the refusal that stops it. `Registry.invoke`
runs `PIPELINE` and then the handler, and logs every outcome; a new rule of the house is a new
step here, in its place, never a check inside a handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from groundnote.auth.principal import Principal
from groundnote.auth.scopes import refuse_scope
from groundnote.capabilities.context import public_url, reachable
from groundnote.capabilities.declaration import Capability, Tenancy
from groundnote.config import Config
from groundnote.domain.bounds import MAX_NESTING, input_problem
from groundnote.domain.errors import (
    AuthRequired,
    ChannelNotAllowed,
    RightMissing,
    ScopeNotAllowed,
    ValidationFailed,
    decisions_belong_to_people,
    scope_refusal,
)
from groundnote.domain.ids import scope_of
from groundnote.store.home import Home

__all__ = ["PIPELINE", "Admission", "Call", "Step", "usable", "validation_error"]


@dataclass(frozen=True)
class Admission:
    """What the tenancy step let through: the scopes the handler acts on, and whether the
    input named them (then the call is logged in the one scope's file)."""

    scopes: tuple[str, ...]
    named: bool


@dataclass
class Call:
    home: Home
    config: Config
    cap: Capability[Any, Any]
    raw: Any
    principal: Principal | None
    channel: str
    value: BaseModel | None = None
    admission: Admission | None = None


Step = Callable[[Call], None]


def validation_error(exc: ValidationError) -> ValidationFailed:
    """One refusal for bad input on every surface, naming each offending key."""
    problems = []
    for item in exc.errors():
        key = ".".join(str(p) for p in item["loc"]) or "(input)"
        msg = "unknown key, not allowed" if item["type"] == "extra_forbidden" else item["msg"]
        problems.append({"key": key, "problem": msg})
    text = "; ".join(f"{p['key']}: {p['problem']}" for p in problems)
    return ValidationFailed(f"The input is not valid: {text}.", problems=problems)


def authenticate(call: Call) -> None:
    if call.principal is None and not call.cap.admits_anonymous(call.config):
        raise AuthRequired("This operation needs credentials.")


def check_channel(call: Call) -> None:
    cap, principal = call.cap, call.principal
    if call.channel == "approval" and principal is not None and not principal.is_person:
        # A grant's token on an approval route: say where the decision is made, and by whom.
        raise decisions_belong_to_people(cap.name, public_url(call.config) + "/approval")
    refused = call.channel not in cap.channels or (
        principal is not None and call.channel not in principal.channels
    )
    # The approval channel is the persons' own: decisions are never an agent's (DESIGN §2.6).
    if call.channel == "approval" and (principal is None or not principal.is_person):
        refused = True
    if refused:
        raise ChannelNotAllowed(
            f"{cap.name} is not available to this grant on the {call.channel} channel."
        )


def validate(call: Call) -> None:
    if not isinstance(call.raw, dict):
        raise ValidationFailed("The input must be a JSON object.")
    problem = input_problem(call.raw)
    if problem is not None:
        raise ValidationFailed(
            f"The input is not taken: {problem}.",
            remedy=f"Send text as valid Unicode, nested at most {MAX_NESTING} levels deep.",
        )
    try:
        call.value = call.cap.input.model_validate(call.raw)
    except ValidationError as exc:
        raise validation_error(exc) from exc


def _named_scopes(tenancy: Tenancy, value: BaseModel, home: Home) -> list[str]:
    """The scopes the input names per the declaration; empty when it names none."""
    found: list[str] = []
    for name in tenancy.names:
        given = getattr(value, name)
        if given is None:
            continue
        if tenancy.kind == "id":
            found.append(scope_of(str(given)))
        elif tenancy.kind == "lookup":
            assert tenancy.lookup is not None
            scope = tenancy.lookup(home, given)
            if scope is not None:
                found.append(scope)
        elif isinstance(given, list):
            found.extend(str(s) for s in given)
        else:
            found.append(str(given))
    return list(dict.fromkeys(found))


def _registered(home: Home, scope: str) -> bool:
    try:
        home.scope_info(scope)
    except ScopeNotAllowed:
        return False
    return True


def _held_somewhere(cap: Capability[Any, Any], principal: Principal, where: str) -> None:
    """The right on some scope: what an organisation-wide or instance-wide call needs."""
    held = principal.strongest_right()
    if held is None or held < cap.right:
        raise RightMissing(
            f"{cap.name} needs the {cap.right.label} right {where}; your grant "
            + (f"has at most {held.label}." if held else "holds no right.")
        )


def _reach(call: Call) -> Admission:
    """An instance-wide call: the grant must hold the right somewhere; it sees only those scopes."""
    if call.principal is None:
        return Admission((), named=False)
    _held_somewhere(call.cap, call.principal, "on at least one scope")
    return Admission(reachable(call.home, call.principal, call.cap.right), named=False)


def admit_tenancy(call: Call) -> None:
    """The right on every scope the call acts on, before the handler; a foreign and a missing
    scope get the same refusal, so an answer never reveals which of the two it was."""
    cap, principal, tenancy = call.cap, call.principal, call.cap.tenancy
    assert call.value is not None
    if tenancy.kind == "org":
        if principal is not None:  # without credentials: the org of anonymous callers
            _held_somewhere(cap, principal, "in your organisation")
        call.admission = Admission((), named=False)
        return
    named = [] if tenancy.kind == "instance" else _named_scopes(tenancy, call.value, call.home)
    if not named:
        call.admission = _reach(call)
        return
    if principal is None:  # only an anonymous capability gets here, and it names no scope
        raise scope_refusal()
    for scope in named:
        right = principal.right_on(scope)
        if right is None or not _registered(call.home, scope):
            # One refusal for a foreign and a missing scope; the near names it offers are
            # the grant's own scopes, so it tells nothing of what else exists.
            raise refuse_scope(principal, scope, call.home.scope_names())
        if right < cap.right:
            raise RightMissing(
                f"{cap.name} needs the {cap.right.label} right on this scope; your grant has "
                f"{right.label}."
            )
    call.admission = Admission(tuple(named), named=True)


PIPELINE: tuple[Step, ...] = (authenticate, check_channel, validate, admit_tenancy)


def usable(
    cap: Capability[Any, Any], principal: Principal | None, channel: str, config: Config
) -> bool:
    """Whether some call of `cap` could pass the pipeline for this caller on `channel`: what
    a surface lists for it (an MCP grant is shown only the tools it can use)."""
    if channel not in cap.channels:
        return False
    if principal is None:
        return cap.admits_anonymous(config)
    held = principal.strongest_right()
    return channel in principal.channels and held is not None and held >= cap.right
