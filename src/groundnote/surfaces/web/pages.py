"""The approval pages (seed 000 §12): server-rendered, autoescaped, no client JavaScript.

Page code renders; it neither queries nor checks. Each page is an approval-channel capability
with a `page` exposure (`structure.overview`, `.pending`, `.proposals`, `.rule`, `.source`, and
the explorer's `.scope`, `.tree`, `.entity`, `.search`, `.activity`),
called through the registry for the signed-in person like any call (channel, validation, the
right on the scope, the operation log); its answer is rendered by the template of its name. Every
decision is a form POSTed to `/approval/act/<capability>`, which runs the same approval
capability as the JSON route and redirects back with a flash message; `/approval/confirm` runs
`structure.review` once for each ticked item.
"""

from __future__ import annotations

import base64
import binascii
import json
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
from groundnote.capabilities import Capability, Registry
from groundnote.core import RuleAnswer
from groundnote.domain.errors import GroundnoteError, NotFound
from groundnote.runtime import Runtime
from groundnote.structure import (
    ArchiveAnswer,
    Overview,
    PendingPage,
    ProposalsPage,
    ReviewAnswer,
    RuleView,
    SourceView,
)
from groundnote.structure.explore_models import (
    ActivityPage,
    EntityPage,
    ScopePage,
    ScopeSearchPage,
    ScopeTreePage,
)
from groundnote.surfaces.web.neighbourhood import layout
from groundnote.surfaces.web.security import (
    clear_session_cookie,
    cross_site_reason,
    person_session,
    safe_back,
    set_session_cookie,
)

__all__ = ["add_pages"]

FLASH_COOKIE = "gn_flash"
BATCH_LIMIT = 100  # a page shows 20 items; a form naming more is no person's click
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


PageView = Callable[[Any], tuple[str, dict[str, Any]]]


def _overview(out: Overview) -> tuple[str, dict[str, Any]]:
    return "home.html", {"title": "Waiting for you", "pending": out.pending, "scopes": out.scopes}


def _listing(
    template: str, title: str, path: str, out: PendingPage | ProposalsPage, **items: Any
) -> tuple[str, dict[str, Any]]:
    """A scope's page of pending items (structure changes, proposed rules), paged."""
    return template, {
        "title": f"{title} · {out.scope}",
        "pending": out.total,
        "scope": out.scope,
        "total": out.total,
        "page": out.page,
        "pages": out.pages,
        "back": f"{path}?scope={out.scope}&page={out.page}",
        **items,
    }


def _pending(out: PendingPage) -> tuple[str, dict[str, Any]]:
    return _listing(
        "structure.html", "Structure changes", "/approval/structure", out, items=out.items
    )


def _proposals(out: ProposalsPage) -> tuple[str, dict[str, Any]]:
    return _listing("proposals.html", "Proposed rules", "/approval/proposals", out, rules=out.rules)


def _rule(out: RuleView) -> tuple[str, dict[str, Any]]:
    return "rule.html", {
        "title": f"Rule {out.id}",
        "pending": len(out.concerns) + (1 if out.status == "proposed" else 0),
        "scope": out.scope,
        "rule": out,
        "back": f"/approval/rules/{out.id}",
    }


def _source(out: SourceView) -> tuple[str, dict[str, Any]]:
    return "source.html", {
        "title": f"{out.kind.capitalize()} {out.title}",
        "scope": out.scope,
        "source": out,
    }


def _scope(out: ScopePage) -> tuple[str, dict[str, Any]]:
    return "scope.html", {
        "title": f"Scope {out.scope}",
        "pending": out.pending.total,
        "scope": out.scope,
        "s": out,
    }


def _tree(out: ScopeTreePage) -> tuple[str, dict[str, Any]]:
    here = out.tree.entity
    return "tree.html", {
        "title": f"{here.name} · tree of {out.scope}" if here else f"Tree of {out.scope}",
        "scope": out.scope,
        "t": out.tree,
    }


def _entity(out: EntityPage) -> tuple[str, dict[str, Any]]:
    e = out.entity
    return "entity.html", {
        "title": f"{e.type} {e.name}",
        "scope": out.scope,
        "page": out,
        "e": e,
        "picture": layout(out.neighbourhood, e.name, e.type, "#links"),
    }


def _search(out: ScopeSearchPage) -> tuple[str, dict[str, Any]]:
    return "search.html", {
        "title": f"Search {out.scope}" + (f": {out.q}" if out.q else ""),
        "scope": out.scope,
        "s": out,
    }


def _activity(out: ActivityPage) -> tuple[str, dict[str, Any]]:
    return "activity.html", {"title": f"Activity in {out.scope}", "scope": out.scope, "a": out}


# Each page capability's template and what it shows; a page capability without one fails here.
PAGES: dict[str, PageView] = {
    "structure.overview": _overview,
    "structure.pending": _pending,
    "structure.proposals": _proposals,
    "structure.rule": _rule,
    "structure.source": _source,
    "structure.scope": _scope,
    "structure.tree": _tree,
    "structure.entity": _entity,
    "structure.search": _search,
    "structure.activity": _activity,
}


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

    def page(cap: Capability[Any, Any], view: PageView) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            session = person_session(runtime, request)
            if session is None:
                return login_needed(request)
            raw = {**request.query_params, **request.path_params}
            try:
                out = await anyio.to_thread.run_sync(
                    partial(
                        runtime.invoke, cap, raw, principal=session.principal, channel="approval"
                    )
                )
            except GroundnoteError as exc:
                return refused(request, session, exc)
            template, context = view(out)
            return render(request, template, session, **context)

        return endpoint

    async def decision_form(
        request: Request,
    ) -> tuple[PersonSession, Any] | Response:
        """The signed-in person and their form, or the page that refuses the POST."""
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
        return session, form

    async def decide(
        session: PersonSession, cap: Capability[Any, Any], raw: dict[str, Any]
    ) -> tuple[bool, str]:
        """One decision through the registry, as any call: (done, what the person is told)."""
        try:
            out = await anyio.to_thread.run_sync(
                partial(runtime.invoke, cap, raw, principal=session.principal, channel="approval")
            )
            return True, describe(out)
        except GroundnoteError as exc:
            return False, f"{exc.message} {exc.remedy}"

    def back_with(request: Request, form: Any, kind: str, text: str) -> Response:
        response = RedirectResponse(safe_back(_text(form.get("back"))), status_code=303)
        response.set_cookie(
            FLASH_COOKIE,
            _flash_value(kind, text[:1500]),  # a cookie holds about 4 kB
            max_age=120,
            path="/approval",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    async def act(request: Request) -> Response:
        checked = await decision_form(request)
        if isinstance(checked, Response):
            return checked
        session, form = checked
        name = str(request.path_params["name"])
        caps = {cap.name: cap for cap in registry if cap.kind == "command"}
        if name not in caps:
            return refused(request, session, NotFound(f"There is no decision {name}."))
        raw = {
            key: value
            for key, value in ((k, _text(v)) for k, v in form.multi_items())
            if key not in ("csrf", "back") and value
        }
        done, text = await decide(session, caps[name], raw)
        return back_with(request, form, "ok" if done else "error", text)

    async def confirm_many(request: Request) -> Response:
        """Confirm every ticked item: each one its own structure.review, as if confirmed alone,
        so one that changed meanwhile is refused on its own and the others still pass."""
        checked = await decision_form(request)
        if isinstance(checked, Response):
            return checked
        session, form = checked
        targets = list(dict.fromkeys(t for t in map(_text, form.getlist("target")) if t))
        if not targets:
            return back_with(request, form, "error", "Nothing was ticked, so nothing changed.")
        if len(targets) > BATCH_LIMIT:
            return back_with(
                request,
                form,
                "error",
                f"At most {BATCH_LIMIT} items at once; {len(targets)} were ticked. Nothing changed.",
            )
        review = registry.get("structure.review")
        results = [
            await decide(session, review, {"target": t, "verdict": "confirm"}) for t in targets
        ]
        failed = [text for done, text in results if not done]
        lines = [text for done, text in results if done]
        summary = f"{len(lines)} of {len(targets)} confirmed."
        if failed:
            summary += " Not confirmed: " + " ".join(failed)
        return back_with(request, form, "error" if failed else "ok", " ".join([summary, *lines]))

    def stylesheet(_: Request) -> Response:
        return Response(
            _CSS.read_text("utf-8"),
            media_type="text/css",
            headers={"Cache-Control": "max-age=300", "X-Content-Type-Options": "nosniff"},
        )

    routes: list[tuple[str, Any, str]] = [
        (cap.page.path, page(cap, PAGES[cap.name]), "GET") for cap in registry if cap.page
    ]
    routes += [
        ("/approval/login", login, "GET"),
        ("/approval/logout", logout, "POST"),
        ("/approval/act/{name}", act, "POST"),
        ("/approval/confirm", confirm_many, "POST"),
        ("/approval/static/approval.css", stylesheet, "GET"),
    ]
    for path, endpoint, method in routes:
        app.add_api_route(path, endpoint, methods=[method], include_in_schema=False)


def _text(value: object) -> str | None:
    """A form field as text; an uploaded file is not a decision and counts as absent."""
    return value.strip() if isinstance(value, str) else None
