"""Who is at the approval pages, and whether a form POST really comes from them.

A session is a cookie (HttpOnly, SameSite=Strict, Secure on https) holding a random token
whose hash is in instance.db. A POST passes only with the session's CSRF token in the form
(or the `X-CSRF-Token` header for JSON), and with `Origin` / `Sec-Fetch-Site`, when the
browser sends them, naming this very origin: three locks, so one browser quirk opens none.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

from groundnote.auth import PersonSession, csrf_matches, session_of
from groundnote.runtime import Runtime

__all__ = [
    "CSRF_HEADER",
    "SESSION_COOKIE",
    "clear_session_cookie",
    "cross_site_reason",
    "person_session",
    "safe_back",
    "set_session_cookie",
]

SESSION_COOKIE = "gn_session"
CSRF_HEADER = "x-csrf-token"


def person_session(runtime: Runtime, request: Request) -> PersonSession | None:
    token = request.cookies.get(SESSION_COOKIE)
    return session_of(runtime.home.instance, token, runtime.home.clock.instant())


def _own_origins(runtime: Runtime, request: Request) -> set[str]:
    origins = {f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"}
    if runtime.config.public_url:
        parts = urlsplit(runtime.config.public_url)
        origins.add(f"{parts.scheme}://{parts.netloc}")
    return origins


def cross_site_reason(
    runtime: Runtime, request: Request, session: PersonSession, presented: str | None
) -> str | None:
    """Why a state-changing request must be refused, or None when it may pass."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site != "same-origin":
        return f"the browser says the request came from another site ({fetch_site})"
    origin = request.headers.get("origin")
    if origin is not None and origin not in _own_origins(runtime, request):
        return f"the request came from another origin ({origin})"
    if not csrf_matches(session, presented):
        return "the form's security token is missing or belongs to another session"
    return None


def set_session_cookie(request: Request, response: Response, session: PersonSession) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        session.token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")


def safe_back(target: str | None) -> str:
    """A redirect target inside the approval pages, never elsewhere (no open redirect)."""
    if target and target.startswith("/approval") and not target.startswith("//"):
        return target
    return "/approval"
