"""The registry: every capability and prompt, and the one way to call a capability.

`invoke` is what every surface calls: it runs the pipeline (`pipeline.py`: authenticate,
channel, validate, tenancy and right), then the handler, and writes the operation log row of
every outcome. Surfaces translate transport to this call and its result or error back; they
hold no rule of their own. Registration refuses a declaration the pipeline could not enforce.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from groundnote.auth.principal import Principal
from groundnote.capabilities.context import Context, Services
from groundnote.capabilities.declaration import Capability, Prompt, Tenancy
from groundnote.capabilities.keys import KEY_FIELD, HeldWrite, first_answer, record_answer
from groundnote.capabilities.pipeline import PIPELINE, Call, Step
from groundnote.capabilities.refusals import AnonymousRefusals
from groundnote.config import Config
from groundnote.domain.cancel import cancellable
from groundnote.domain.errors import (
    Busy,
    GroundnoteError,
    Internal,
    ValidationFailed,
    from_backstop,
)
from groundnote.domain.progress import Progress
from groundnote.store.database import one_call
from groundnote.store.home import Home
from groundnote.store.oplog import OpLogEntry, write_entry
from groundnote.store.sql import IntegrityError, StoreError

__all__ = ["LogAs", "Registry", "check_declaration", "input_sha256"]

log = logging.getLogger("groundnote")

AnyCapability = Capability[Any, Any]


def input_sha256(raw: Any) -> str:
    try:
        canonical = json.dumps(
            raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
        )
    except (RecursionError, ValueError):
        # Input too deep to encode (the pipeline refuses it) is still logged, by its shape.
        canonical = repr(type(raw))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class LogAs:
    """How a surface that serves many capabilities under one endpoint names its calls in the
    instance log (the impulse resolve endpoint: `impulses.resolve`, with the shape)."""

    operation: str
    stages: Mapping[str, Any] = field(default_factory=dict)


def check_declaration(cap: AnyCapability) -> None:
    """Refuse a declaration whose rules the pipeline could not hold."""
    tenancy = getattr(cap, "tenancy", None)
    if not isinstance(tenancy, Tenancy):
        raise ValueError(f"{cap.name} declares no tenancy: say where its scope comes from")
    missing = [n for n in tenancy.names if n not in cap.input.model_fields]
    if missing:
        raise ValueError(
            f"{cap.name}: its tenancy names {', '.join(missing)}, which "
            f"{cap.input.__name__} does not have"
        )
    if cap.kind == "command" and cap.annotations.read_only:
        raise ValueError(f"{cap.name} is a command and cannot be advertised as read-only")
    if cap.page is not None and not cap.approval:
        raise ValueError(f"{cap.name}: a page is on the approval channel; declare approval=True")
    if not cap.channels:
        raise ValueError(f"{cap.name} is exposed on no surface")


class Registry:
    def __init__(
        self,
        capabilities: Iterable[AnyCapability],
        prompts: Iterable[Prompt] = (),
        *,
        services: Services | None = None,
        pipeline: tuple[Step, ...] = PIPELINE,
    ) -> None:
        self._by_name: dict[str, AnyCapability] = {}
        self._by_tool: dict[str, AnyCapability] = {}
        self._by_shape: dict[str, AnyCapability] = {}
        for cap in capabilities:
            check_declaration(cap)
            if cap.name in self._by_name:
                raise ValueError(f"capability {cap.name} is declared twice")
            self._by_name[cap.name] = cap
            for kind, key, table in (
                ("MCP tool", cap.mcp.tool if cap.mcp else None, self._by_tool),
                ("shape", cap.shape.name if cap.shape else None, self._by_shape),
            ):
                if key is None:
                    continue
                if key in table:
                    raise ValueError(f"{kind} {key} is declared twice")
                table[key] = cap
        self.prompts: dict[str, Prompt] = {p.name: p for p in prompts}
        self.anonymous_refusals = AnonymousRefusals()
        self.services = services or Services()
        self.pipeline = pipeline

    def __iter__(self) -> Iterator[AnyCapability]:
        return iter(sorted(self._by_name.values(), key=lambda c: c.name))

    def get(self, name: str) -> AnyCapability:
        return self._by_name[name]

    def by_tool(self, tool: str) -> AnyCapability | None:
        return self._by_tool.get(tool)

    def by_shape(self, shape: str) -> AnyCapability | None:
        return self._by_shape.get(shape)

    def shapes(self) -> list[AnyCapability]:
        """The capabilities resolved by pointer, in the order they were declared."""
        return list(self._by_shape.values())

    @one_call()
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
        log_as: LogAs | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> BaseModel:
        """Call one capability; raises a GroundnoteError for every refusal. One call for the
        store (`one_call`): each unit's data version is read once in it."""
        ctx = Context(
            home=home,
            config=config,
            principal=principal,
            channel=channel,
            capability=cap,
            input_sha256=input_sha256(raw),
            request_id=uuid.uuid4().hex[:12],
            progress=progress,
            services=self.services,
            logged_as=log_as.operation if log_as else cap.name,
            meta=meta or {},
        )
        if log_as is not None:
            ctx.log.stages = dict(log_as.stages)
        log_scope: str | None = None
        try:
            call = Call(home, config, cap, raw, principal, channel)
            for step in self.pipeline:
                step(call)
            assert call.value is not None and call.admission is not None
            ctx.scopes = call.admission.scopes
            if call.admission.named:
                ctx.log.cross_scope = len(ctx.scopes) > 1
                if len(ctx.scopes) == 1:
                    log_scope = ctx.scopes[0]
            result: BaseModel = self._handle(ctx, cap, call.value)
        except GroundnoteError as exc:
            self._log(ctx, log_scope, exc.code)
            raise
        except OverflowError as exc:
            # A number the input model left unbounded, too large for the store.
            self._log(ctx, log_scope, ValidationFailed.code)
            raise ValidationFailed(
                "A number in the input is too large.",
                remedy="Give numbers within the ranges the reference page of the operation names.",
            ) from exc
        except IntegrityError as exc:
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

    def _handle(self, ctx: Context, cap: AnyCapability, value: BaseModel) -> BaseModel:
        """The handler's answer; for a call with an idempotency key, inside the one write
        transaction that looks the key up and records it with the answer (keys.py)."""
        key = getattr(value, KEY_FIELD, None)
        if key is None:
            answered: BaseModel = cap.handler(ctx, value)
            return answered
        if len(ctx.scopes) != 1:
            raise ValidationFailed("An idempotency key is taken only on a call on one scope.")
        scope = ctx.scopes[0]
        digest = input_sha256(value.model_dump(mode="json", exclude={KEY_FIELD}))
        with ctx.home.scope_db(scope).write() as conn:
            first = first_answer(conn, ctx.actor, key, cap.name, digest)
            if first is not None:
                ctx.log.stages = {"idempotency": "replayed"}
                replayed: BaseModel = cap.output.model_validate_json(first)
                return replayed
            ctx.held = HeldWrite(scope, conn)
            try:
                result: BaseModel = cap.handler(ctx, value)
            finally:
                ctx.held = None
            answer = result.model_dump_json()
            record_answer(conn, ctx.actor, key, cap.name, digest, answer, ctx.clock.instant())
        return result

    def refuse(
        self,
        home: Home,
        error: GroundnoteError,
        *,
        principal: Principal | None,
        channel: str,
        raw: Any,
        log_as: LogAs,
    ) -> GroundnoteError:
        """Log a refusal a surface made before it could name a capability (the impulse
        endpoint's own envelope: a body that is not JSON, an unknown shape) the way `invoke`
        logs one, and hand it back to be answered."""
        if principal is None:
            self.anonymous_refusals.note(log_as.operation, error.code, channel)
            return error
        entry = OpLogEntry(stages=dict(log_as.stages))
        _write_row(
            home,
            entry,
            _row(home, principal, channel, error.code, input_sha256(raw)),
            instance_operation=log_as.operation,
            request_id="-",
        )
        return error

    def _log(self, ctx: Context, scope: str | None, outcome: str) -> None:
        if ctx.log.written:
            return
        if ctx.principal is None and outcome != "ok":
            self.anonymous_refusals.note(ctx.logged_as, outcome, ctx.channel)
            return
        with cancellable(None):  # the log row records every outcome, a cancellation too
            _write_row(
                ctx.home,
                ctx.log,
                _row(ctx.home, ctx.principal, ctx.channel, outcome, ctx.input_sha256),
                instance_operation=ctx.logged_as,
                request_id=ctx.request_id,
                scope=scope,
                scope_operation=ctx.capability.log_operation,
                read=ctx.capability.annotations.read_only,
            )


def _row(
    home: Home, principal: Principal | None, channel: str, outcome: str, digest: str
) -> dict[str, Any]:
    return {
        "at": home.clock.instant(),
        "grant_id": principal.id if principal else "anonymous",
        "channel": channel,
        "outcome": outcome,
        "input_sha256": digest,
    }


def _write_row(
    home: Home,
    entry: OpLogEntry,
    fields: dict[str, Any],
    *,
    instance_operation: str,
    request_id: str,
    scope: str | None = None,
    scope_operation: str | None = None,
    read: bool = False,
) -> None:
    """The call's row: in the file of the one scope it was admitted on, else in instance.db.

    A read's row commits by itself (`Database.append`). Any other waits at the gate as a write
    does: a write running for the same grant holds its operation's tally row (log_tally) until
    it commits, and only the gate bounds that wait by the busy timeout.
    """
    if scope is not None and scope_operation is not None:
        db, operation = home.scope_db(scope), scope_operation
    else:
        db, operation = home.instance, instance_operation
    try:
        with db.append() if read else db.write() as conn:
            write_entry(conn, entry, operation=operation, **fields)
    except Busy:
        # Other processes held the file past the busy timeout: expected under load, no trace.
        log.warning("request %s: the operation log row was not written: file busy", request_id)
    except (GroundnoteError, StoreError):
        log.exception("request %s: the operation log row could not be written", request_id)
