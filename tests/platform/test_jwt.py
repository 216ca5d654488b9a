"""JWTs (PyJWT) beside API keys: verified against the configured secret, audience and expiry."""

from __future__ import annotations

import time
from pathlib import Path

import jwt

from groundnote.auth import person_from_jwt
from groundnote.domain.clock import SystemClock
from groundnote.runtime import open_runtime

SECRET = "s" * 40


def _token(audience: str, **claims: object) -> str:
    payload = {"sub": "bot", "aud": audience, "exp": int(time.time()) + 60, **claims}
    return jwt.encode(payload, SECRET, algorithm="HS256")


def test_api_jwt_gives_the_claimed_scopes_and_org(tmp_path: Path) -> None:
    runtime = open_runtime(
        tmp_path, clock=SystemClock(), environ={"GROUNDNOTE_AUTH__JWT_SECRET": SECRET}
    )
    principal = runtime.authenticate(
        _token("groundnote-api", org_id="acme", scopes=["sales:propose"])
    )
    assert principal is not None
    assert principal.org == "acme" and principal.id == "grant:jwt:bot"
    assert principal.right_on("sales") is not None and principal.right_on("hr") is None
    assert runtime.authenticate(_token("groundnote-approval", scopes=["sales:read"])) is None
    expired = jwt.encode({"sub": "x", "aud": "groundnote-api", "exp": 1}, SECRET, algorithm="HS256")
    assert runtime.authenticate(expired) is None
    forged = jwt.encode(
        {"sub": "x", "aud": "groundnote-api", "exp": int(time.time()) + 60},
        "x" * 40,
        algorithm="HS256",
    )
    assert runtime.authenticate(forged) is None
    person = person_from_jwt(
        _token("groundnote-approval", email="ruth@example.org"), runtime.config.auth
    )
    assert (
        person is not None
        and person.id == "person:bot"
        and person.channels == frozenset({"approval"})
    )
    runtime.close()
