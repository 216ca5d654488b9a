"""The approval pages (seed 000 §12): server-rendered, autoescaped, no client JavaScript.

Reads go through `structure`'s views; every decision is a form POSTed to
`/approval/act/<capability>`, which runs the same approval capability as the JSON route
(registry validation, rights, operation log) and redirects back with a flash message.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable
from functools import partial
from importlib import resources
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel

from groundnote.auth import PersonSession, end_session, redeem_login_link
from groundnote.capabilities import Registry
from groundnote.core import RuleAnswer
from groundnote.domain.errors import GroundnoteError, NotFound, scope_refusal
from groundnote.domain.ids import RULE_ID_RE, SCOPE_RE
from groundnote.runtime import Runtime
from groundnote.structure import (
    ArchiveAnswer,
    ReviewAnswer,
    counts,
    pending_items,
    proposed_rules,
    rule_view,
    scope_of,
)
from groundnote.surfaces.web.security import (
    clear_session_cookie,
    cross_site_reason,
    person_session,
    safe_back,
    set_session_cookie,
)

__all__ = ["PAGE_SIZE", "add_pages"]

PAGE_SIZE = 20
FLASH_COOKIE = "gn_flash"
_CSS = resources.files("groundnote.surfaces.web").joinpath("static/approval.css")
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _when(instant: str) -> str:
    """`2026-11-30T09:00:00.000Z` → `2026-11-30 09:00 UTC`."""
    return f"{instant[:10]} {instant[11:16]} UTC" if len(instant) >= 16 else instant


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("groundnote.surfaces.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    return env


def _page_number(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() and 0 < int(raw) < 100_000 else 1


def _read_flash(request: Request) -> dict[str, str] | None:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(raw.encode()))
    except (ValueError, binascii.Error):
        return None
    if isinstance(data, dict) and data.get("kind") in ("ok", "error"):
        return {"kind": str(data["kind"]), "text": str(data.get("text", ""))[:2000]}
    return None


def _flash_value(kind: str, text: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"kind": kind, "text": text}).encode()).decode()


def describe(out: BaseModel) -> str:
    """The flash message after a decision: what happened, in the person's words."""
    if isinstance(out, ReviewAnswer):
        if out.entity is not None:
            name = f"{out.entity.name} ({out.entity.id})"
            if out.review.verdict == "confirm":
                return f"Confirmed {name}."
            if out.entity.status == "archived":
                return f"Reverted {name}: it was never confirmed, so it is archived now."
            where = " › ".join(p.name for p in out.path)
            return f"Reverted {name} to its last confirmed state: {where}."
        assert out.link is not None
        verb = "Confirmed" if out.review.verdict == "confirm" else "Rejected"
        return f"{verb} the {out.link.type} link {out.link.id}."
    if isinstance(out, ArchiveAnswer):
        names = ", ".join(f"{e.name} ({e.id})" for e in out.archived)
        return f"Archived {len(out.archived)} entit{'y' if len(out.archived) == 1 else 'ies'}: {names}."
    if isinstance(out, RuleAnswer):
        return f"Rule {out.id} is {out.status} now."
    return "Done."


def add_pages(app: FastAPI, runtime: Runtime, registry: Registry) -> None:
    env = _environment()
    home = runtime.home

    def render(
        request: Request,
        template: str,
        session: PersonSession | None,
        *,
        status: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        flash = _read_flash(request)
        html = env.get_template(template).render(
            person=session.principal if session else None,
            csrf=session.csrf if session else "",
            flash=flash,
            pending=context.pop("pending", 0),
            **context,
        )
        response = HTMLResponse(html, status_code=status, headers=_HEADERS)
        if flash is not None:
            response.delete_cookie(FLASH_COOKIE, path="/approval", samesite="strict")
        return response

    def message(
        request: Request,
        session: PersonSession | None,
        status: int,
        heading: str,
        *lines: str,
        **extra: Any,
    ) -> HTMLResponse:
        context = {"hint": None, "link": None, "refresh": None, **extra}
        return render(
            request,
            "message.html",
            session,
            status=status,
            title=heading,
            heading=heading,
            lines=list(lines),
            kind="error" if status >= 400 else "ok",
            **context,
        )

    def login_needed(request: Request) -> HTMLResponse:
        return message(
            request,
            None,
            401,
            "Please sign in",
            "The approval pages are for persons. Open the one-time login link that "
            "`groundnote serve` printed, or ask for a new one:",
            hint="groundnote person link NAME",
        )

    def refused(
        request: Request, session: PersonSession | None, exc: GroundnoteError
    ) -> HTMLResponse:
        return message(request, session, exc.status, "Not possible", exc.message, exc.remedy)

    def check_scope(session: PersonSession, scope: str | None) -> str:
        if not scope or not re.match(SCOPE_RE, scope):
            raise scope_refusal()
        if session.principal.right_on(scope) is None:
            raise scope_refusal()
        home.scope_info(scope)
        return scope

    async def login(request: Request) -> Response:
        token = request.query_params.get("token", "")
        session = await anyio.to_thread.run_sync(
            partial(redeem_login_link, home.instance, token, home.clock)
        )
        if session is None:
            return message(
                request,
                None,
                401,
                "This login link does not work",
                "It was used already, has expired, or was never issued. Ask for a new one:",
                hint="groundnote person link NAME",
            )
        # A page that moves on by itself rather than a redirect: a SameSite=Strict cookie set
        # on a navigation that began on another site (a mail client) would not be sent yet.
        response = message(
            request,
            session,
            200,
            "Signed in",
            f"Welcome, {session.principal.identity or session.principal.id}.",
            link={"href": "/approval", "text": "Continue to the approval page"},
            refresh="/approval",
        )
        set_session_cookie(request, response, session)
        return response

    async def logout(request: Request) -> Response:
        session = person_session(runtime, request)
        if session is None:
            return RedirectResponse("/approval", status_code=303)
        form = await request.form()
        reason = cross_site_reason(runtime, request, session, _text(form.get("csrf")))
        if reason is not None:
            return message(request, session, 403, "Refused", f"Not signed out: {reason}.")
        end_session(home.instance, session.token, home.clock.instant())
        response = RedirectResponse("/approval", status_code=303)
        clear_session_cookie(response)
        return response

    def overview(request: Request) -> Response:
        session = person_session(runtime, request)
        if session is None:
            return login_needed(request)
        scopes = []
        pending = 0
        for name in session.principal.readable_scopes(home.scope_names()):
            with home.scope_db(name).read() as conn:
                found = counts(conn)
                total, items = pending_items(conn, limit=5)
            pending += found.total
            scopes.append({"name": name, "counts": found, "entries": items, "total": total})
        return render(
            request, "home.html", session, title="Waiting for you", pending=pending, scopes=scopes
        )

    def listing(
        request: Request,
        template: str,
        title: str,
        path: str,
        key: str,
        load: Callable[..., tuple[int, Any]],
    ) -> Response:
        """A scope's page of pending items (structure changes, proposed rules), paged."""
        session = person_session(runtime, request)
        if session is None:
            return login_needed(request)
        try:
            scope = check_scope(session, request.query_params.get("scope"))
        except GroundnoteError as exc:
            return refused(request, session, exc)
        page = _page_number(request.query_params.get("page"))
        with home.scope_db(scope).read() as conn:
            total, items = load(conn, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        return render(
            request,
            template,
            session,
            title=f"{title} · {scope}",
            pending=total,
            scope=scope,
            total=total,
            page=page,
            pages=max(1, math.ceil(total / PAGE_SIZE)),
            back=f"{path}?scope={scope}&page={page}",
            **{key: items},
        )

    def structure_page(request: Request) -> Response:
        return listing(
            request,
            "structure.html",
            "Structure changes",
            "/approval/structure",
            "items",
            pending_items,
        )

    def proposals_page(request: Request) -> Response:
        return listing(
            request,
            "proposals.html",
            "Proposed rules",
            "/approval/proposals",
            "rules",
            proposed_rules,
        )

    def rule_page(request: Request) -> Response:
        session = person_session(runtime, request)
        if session is None:
            return login_needed(request)
        rule_id = str(request.path_params["rule_id"])
        try:
            if not re.match(RULE_ID_RE, rule_id):
                raise NotFound(
                    f"{rule_id} is not a rule id.", remedy="Rule ids look like sales-0001."
                )
            scope = check_scope(session, scope_of(rule_id))
            with home.scope_db(scope).read() as conn:
                rule = rule_view(conn, rule_id)
            if rule is None:
                raise NotFound(f"There is no rule {rule_id}.")
        except GroundnoteError as exc:
            return refused(request, session, exc)
        waiting = len(rule.concerns) + (1 if rule.status == "proposed" else 0)
        return render(
            request,
            "rule.html",
            session,
            title=f"Rule {rule_id}",
            pending=waiting,
            scope=scope,
            rule=rule,
            back=f"/approval/rules/{rule_id}",
        )

    async def act(request: Request) -> Response:
        session = person_session(runtime, request)
        if session is None:
            return login_needed(request)
        form = await request.form()
        reason = cross_site_reason(runtime, request, session, _text(form.get("csrf")))
        if reason is not None:
            return message(
                request,
                session,
                403,
                "Refused",
                f"Nothing was changed: {reason}.",
                "Reload the page and use its forms.",
            )
        name = str(request.path_params["name"])
        caps = {cap.name: cap for cap in registry}
        if name not in caps:
            return refused(request, session, NotFound(f"There is no decision {name}."))
        raw = {
            key: value
            for key, value in ((k, _text(v)) for k, v in form.multi_items())
            if key not in ("csrf", "back") and value
        }
        try:
            out = await anyio.to_thread.run_sync(
                partial(
                    runtime.invoke, caps[name], raw, principal=session.principal, channel="approval"
                )
            )
            flash = _flash_value("ok", describe(out))
        except GroundnoteError as exc:
            flash = _flash_value("error", f"{exc.message} {exc.remedy}")
        response = RedirectResponse(safe_back(_text(form.get("back"))), status_code=303)
        response.set_cookie(
            FLASH_COOKIE,
            flash,
            max_age=120,
            path="/approval",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    def stylesheet(_: Request) -> Response:
        return Response(
            _CSS.read_text("utf-8"),
            media_type="text/css",
            headers={"Cache-Control": "max-age=300", "X-Content-Type-Options": "nosniff"},
        )

    routes: list[tuple[str, Any, str]] = [
        ("/approval", overview, "GET"),
        ("/approval/structure", structure_page, "GET"),
        ("/approval/proposals", proposals_page, "GET"),
        ("/approval/rules/{rule_id}", rule_page, "GET"),
        ("/approval/login", login, "GET"),
        ("/approval/logout", logout, "POST"),
        ("/approval/act/{name}", act, "POST"),
        ("/approval/static/approval.css", stylesheet, "GET"),
    ]
    for path, endpoint, method in routes:
        app.add_api_route(path, endpoint, methods=[method], include_in_schema=False)


def _text(value: object) -> str | None:
    """A form field as text; an uploaded file is not a decision and counts as absent."""
    return value.strip() if isinstance(value, str) else None
