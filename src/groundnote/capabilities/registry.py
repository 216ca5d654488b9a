"""The registry: every capability and prompt, and the one way to call a capability.

`invoke` is what every surface calls: it checks the channel, validates the input against the
declared model (unknown keys refused), checks the caller's right on every scope the input
names, runs the handler and writes the operation log row. Surfaces translate transport to
this call and its result or error back; they hold no rule of their own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from groundnote.auth.principal import Principal
from groundnote.auth.scopes import refuse_scope
from groundnote.capabilities.context import Context
from groundnote.capabilities.declaration import Capability, Prompt
from groundnote.config import Config
from groundnote.domain.errors import (
    AuthRequired,
    ChannelNotAllowed,
    GroundnoteError,
    Internal,
    RightMissing,
    ScopeNotAllowed,
    ValidationFailed,
    decisions_belong_to_people,
    from_backstop,
)
from groundnote.domain.progress import Progress
from groundnote.store.home import Home
from groundnote.store.oplog import write_entry

__all__ = ["Registry", "input_sha256", "validation_error"]

log = logging.getLogger("groundnote")

AnyCapability = Capability[Any, Any]


def input_sha256(raw: Any) -> str:
    canonical = json.dumps(
        raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def validation_error(exc: ValidationError) -> ValidationFailed:
    """One refusal for bad input on every surface, naming each offending key."""
    problems = []
    for item in exc.errors():
        key = ".".join(str(p) for p in item["loc"]) or "(input)"
        msg = "unknown key, not allowed" if item["type"] == "extra_forbidden" else item["msg"]
        problems.append({"key": key, "problem": msg})
    text = "; ".join(f"{p['key']}: {p['problem']}" for p in problems)
    return ValidationFailed(f"The input is not valid: {text}.", problems=problems)


def _scopes_named(value: BaseModel) -> list[str]:
    scopes: list[str] = []
    single = getattr(value, "scope", None)
    if isinstance(single, str):
        scopes.append(single)
    many = getattr(value, "scopes", None)
    if isinstance(many, list):
        scopes.extend(s for s in many if isinstance(s, str))
    return scopes


def _registered(home: Home, scope: str) -> bool:
    try:
        home.scope_info(scope)
    except ScopeNotAllowed:
        return False
    return True


class Registry:
    def __init__(
        self, capabilities: Iterable[AnyCapability], prompts: Iterable[Prompt] = ()
    ) -> None:
        self._by_name: dict[str, AnyCapability] = {}
        self._by_tool: dict[str, AnyCapability] = {}
        for cap in capabilities:
            if cap.name in self._by_name:
                raise ValueError(f"capability {cap.name} is declared twice")
            self._by_name[cap.name] = cap
            if cap.mcp:
                if cap.mcp.tool in self._by_tool:
                    raise ValueError(f"MCP tool {cap.mcp.tool} is declared twice")
                self._by_tool[cap.mcp.tool] = cap
        self.prompts: dict[str, Prompt] = {p.name: p for p in prompts}

    def __iter__(self) -> Iterator[AnyCapability]:
        return iter(sorted(self._by_name.values(), key=lambda c: c.name))

    def get(self, name: str) -> AnyCapability:
        return self._by_name[name]

    def by_tool(self, tool: str) -> AnyCapability | None:
        return self._by_tool.get(tool)

    def invoke(
        self,
        home: Home,
        config: Config,
        cap: AnyCapability,
        raw: Any,
        *,
        principal: Principal | None,
        channel: str,
        progress: Progress | None = None,
    ) -> BaseModel:
        """Call one capability; raises a GroundnoteError for every refusal."""
        ctx = Context(
            home=home,
            config=config,
            principal=principal,
            channel=channel,
            capability=cap,
            input_sha256=input_sha256(raw),
            request_id=uuid.uuid4().hex[:12],
            progress=progress,
        )
        log_scope: str | None = None
        try:
            value = self._admit(home, cap, raw, principal, channel, ctx.public_url() + "/approval")
            scopes = _scopes_named(value)
            if len(scopes) == 1:
                log_scope = scopes[0]
            ctx.log.cross_scope = len(scopes) > 1
            result: BaseModel = cap.handler(ctx, value)
        except GroundnoteError as exc:
            self._log(ctx, log_scope, exc.code)
            raise
        except sqlite3.IntegrityError as exc:
            known = from_backstop(str(exc))
            self._log(ctx, log_scope, known.code if known else "internal")
            if known is None:
                log.exception("request %s: database refused a write", ctx.request_id)
                raise Internal(f"The store refused the write (request {ctx.request_id}).") from exc
            raise known from exc
        except Exception as exc:
            log.exception("request %s failed", ctx.request_id)
            self._log(ctx, log_scope, "internal")
            raise Internal(
                f"An internal error occurred (request {ctx.request_id}); it was logged."
            ) from exc
        self._log(ctx, log_scope, "ok")
        return result

    def _admit(
        self,
        home: Home,
        cap: AnyCapability,
        raw: Any,
        principal: Principal | None,
        channel: str,
        approval_url: str,
    ) -> BaseModel:
        if principal is None and not cap.anonymous:
            raise AuthRequired("This operation needs credentials.")
        if channel == "approval" and principal is not None and channel not in principal.channels:
            raise decisions_belong_to_people(cap.name, approval_url)
        if channel not in cap.channels or (
            principal is not None and channel not in principal.channels
        ):
            raise ChannelNotAllowed(
                f"{cap.name} is not available to this grant on the {channel} channel."
            )
        if not isinstance(raw, dict):
            raise ValidationFailed("The input must be a JSON object.")
        try:
            value: BaseModel = cap.input.model_validate(raw)
        except ValidationError as exc:
            raise validation_error(exc) from exc
        if principal is not None:
            for scope in _scopes_named(value):
                right = principal.right_on(scope)
                if right is None or not _registered(home, scope):  # the same refusal for both
                    raise refuse_scope(principal, scope, home.scope_names())
                if right < cap.right:
                    raise RightMissing(
                        f"{cap.name} needs the {cap.right.label} right on this scope; "
                        f"your grant has {right.label}."
                    )
        return value

    def _log(self, ctx: Context, scope: str | None, outcome: str) -> None:
        if ctx.log.written:
            return
        fields: dict[str, Any] = {
            "at": ctx.clock.instant(),
            "grant_id": ctx.actor,
            "channel": ctx.channel,
            "outcome": outcome,
            "input_sha256": ctx.input_sha256,
        }
        op = ctx.capability.log_operation
        try:
            if scope is not None and op is not None:  # the scope was admitted
                with ctx.home.scope_db(scope).write() as conn:
                    write_entry(conn, ctx.log, operation=op, **fields)
                return
            with ctx.home.instance.write() as conn:
                write_entry(conn, ctx.log, operation=ctx.capability.name, **fields)
        except (GroundnoteError, sqlite3.Error):
            log.exception("request %s: the operation log row could not be written", ctx.request_id)
