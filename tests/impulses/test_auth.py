"""Authorization (seed 003): writes always need credentials, the anonymous read allowlist, one
`[auth-refused]` line per refusal, credentials fail closed, the org only from the credential."""

from __future__ import annotations

import logging
import time
from typing import Any

import jwt
import pytest

from groundnote.auth import revoke_grant
from groundnote.impulses.shapes import ANONYMOUS_READ_SHAPES, DISPATCH
from groundnote.runtime import Runtime
from tests.impulses.conftest import Resolve, count, grant_token, rows
from tests.impulses.test_write_shapes import make_concept, valid_pointer

WRITES = sorted(n for n, s in DISPATCH.items() if s.kind == "write")
SECRET = "s" * 40


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "[auth-refused]" in r.getMessage()]


def test_the_allowlist_is_the_reads_that_change_nothing() -> None:
    assert ANONYMOUS_READ_SHAPES == [
        "relatedConcepts",
        "impulseCooccurrenceEdges",
        "conceptUsageStats",
        "conceptSequence",
    ]
    assert "concept" not in ANONYMOUS_READ_SHAPES  # it counts a load


@pytest.mark.parametrize("shape", [*WRITES, "concept", "noSuchShape"])
def test_anonymous_is_refused_with_401_naming_shape_and_allowlist(
    runtime: Runtime, resolve: Resolve, acme: str, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    pointer = valid_pointer(shape, resolve, acme) if shape in WRITES else {"type": shape}
    before = {t: count(runtime, t) for t in ("concept", "concept_edge", "impulse")}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="groundnote.impulses"):
        status, body = resolve(pointer)
    assert status == 401
    assert body["success"] is False and body["code"] == "AUTH_REQUIRED"
    assert body["shape"] == shape and body["allowlist"] == ANONYMOUS_READ_SHAPES
    assert shape in body["error"] and "relatedConcepts" in body["error"]
    assert len(refusals(caplog)) == 1 and f"shape={shape}" in refusals(caplog)[0]
    assert {t: count(runtime, t) for t in before} == before


def test_writes_need_credentials_even_when_require_auth_is_off(
    runtime: Runtime, resolve: Resolve
) -> None:
    assert runtime.config.impulses.require_auth is False
    status, _ = resolve({"type": "conceptSignatureUpsert_write", "pointer_type": "a", "shape": "b"})
    assert status == 401


def test_anonymous_reads_the_allowlist_in_the_anonymous_org(
    runtime: Runtime, resolve: Resolve, acme: str
) -> None:
    public = grant_token(runtime, "publisher", runtime.config.impulses.anonymous_org)
    concept = make_concept(resolve, public)
    foreign = make_concept(resolve, acme)
    status, body = resolve({"type": "conceptUsageStats", "concept_id": concept})
    assert status == 200 and body["content"]["concept_id"] == concept
    status, _ = resolve({"type": "conceptUsageStats", "concept_id": foreign})
    assert status == 404  # acme's concept is invisible without acme's credential


def test_require_auth_closes_the_allowlist(
    runtime: Runtime, resolve: Resolve, caplog: pytest.LogCaptureFixture
) -> None:
    runtime.config.impulses.require_auth = True
    with caplog.at_level(logging.WARNING, logger="groundnote.impulses"):
        status, body = resolve({"type": "impulseCooccurrenceEdges"})
    assert status == 401 and body["allowlist"] == []
    assert len(refusals(caplog)) == 1


def _jwt(org: str, **claims: Any) -> str:
    payload = {
        "sub": "robot",
        "aud": "groundnote-api",
        "exp": int(time.time()) + 600,
        "org_id": org,
        "scopes": ["*:propose"],
        "channels": ["api"],
        **claims,
    }
    return jwt.encode(payload, SECRET, algorithm="HS256")


@pytest.mark.parametrize(
    "credential",
    ["unknown-key", "revoked", "expired-jwt", "wrong-secret-jwt", "garbage.jwt.token"],
)
def test_credentials_fail_closed(
    runtime: Runtime, resolve: Resolve, credential: str, caplog: pytest.LogCaptureFixture
) -> None:
    runtime.config.auth.jwt_secret = SECRET
    token = {
        "unknown-key": "gn_not-a-key",
        "expired-jwt": _jwt("acme", exp=int(time.time()) - 10),
        "wrong-secret-jwt": jwt.encode(
            {"sub": "x", "aud": "groundnote-api", "exp": int(time.time()) + 60, "org_id": "acme"},
            "w" * 40,
            algorithm="HS256",
        ),
        "garbage.jwt.token": "garbage.jwt.token",
    }.get(credential)
    if credential == "revoked":
        token = grant_token(runtime, "soon-gone", "acme")
        revoke_grant(runtime.home.instance, "soon-gone", runtime.home.clock.instant())
    with caplog.at_level(logging.WARNING, logger="groundnote.impulses"):
        status, body = resolve(
            {"type": "conceptSignatureUpsert_write", "pointer_type": "a", "shape": "b"}, token
        )
    assert status == 401 and body["code"] == "AUTH_REQUIRED"
    assert len(refusals(caplog)) == 1
    assert count(runtime, "concept") == 0


def test_the_org_comes_from_the_jwt(runtime: Runtime, resolve: Resolve) -> None:
    runtime.config.auth.jwt_secret = SECRET
    status, _ = resolve(
        {"type": "conceptSignatureUpsert_write", "pointer_type": "a", "shape": "b"}, _jwt("initech")
    )
    assert status == 200
    assert rows(runtime, "concept")[0]["org_id"] == "initech"
    impulse = rows(runtime, "impulse")[0]
    assert impulse["org_id"] == "initech"


def test_an_org_in_the_payload_is_refused(runtime: Runtime, resolve: Resolve, acme: str) -> None:
    status, body = resolve(
        {
            "type": "concept_create_write",
            "conceptData": {"name": "x", "shape": "s", "org_id": "globex"},
        },
        acme,
    )
    assert status == 400 and "org_id" in body["error"]
    assert count(runtime, "concept") == 0


def test_a_grant_without_the_api_channel_is_403(runtime: Runtime, resolve: Resolve) -> None:
    token = grant_token(runtime, "mcp-only", "acme", channels=["mcp"])
    status, body = resolve({"type": "conceptSequence"}, token)
    assert status == 403 and body["success"] is False


def test_two_orgs_never_see_or_touch_each_others_rows(
    runtime: Runtime, resolve: Resolve, acme: str, globex: str
) -> None:
    a1, a2 = make_concept(resolve, acme, "a1"), make_concept(resolve, acme, "a2")
    g1 = make_concept(resolve, globex, "g1")
    link = {"from_concept_id": a1, "to_concept_id": a2, "edge_type": "t"}
    assert resolve({"type": "conceptLink_write", "linkData": link}, acme)[0] == 200
    resolve({"type": "conceptUsage_write", "usageData": {"concept_id": a1, "trace_id": "t"}}, acme)
    resolve({"type": "conceptSequence_write", "sequenceData": {"concept_ids": [a1, a2]}}, acme)

    # globex cannot read acme's rows ...
    for pointer in (
        {"type": "concept", "concept_id": a1},
        {"type": "relatedConcepts", "concept_id": a1},
        {"type": "conceptUsageStats", "concept_id": a1},
        {"type": "conceptSequence", "concept_id": a1},
    ):
        assert resolve(pointer, globex)[0] == 404, pointer
    assert resolve({"type": "conceptSequence"}, globex)[1]["content"] == {"sequences": []}
    # ... nor write against them
    for pointer in (
        {"type": "conceptLink_write", "linkData": {**link, "to_concept_id": g1}},
        {"type": "conceptLink_write", "linkData": {**link, "from_concept_id": g1}},
        {"type": "conceptUsage_write", "usageData": {"concept_id": a1}},
        {"type": "conceptSequence_write", "sequenceData": {"concept_ids": [g1, a1]}},
    ):
        assert resolve(pointer, globex)[0] == 404, pointer
    # the same signature is one concept per org
    sig = {"type": "conceptSignatureUpsert_write", "pointer_type": "mail", "shape": "x"}
    assert resolve(sig, acme)[1]["content"]["created"] is True
    assert resolve(sig, globex)[1]["content"]["created"] is True
    assert {r["org_id"] for r in rows(runtime, "concept_edge")} == {"acme"}
    assert {r["org_id"] for r in rows(runtime, "concept_usage")} == {"acme"}
    assert len(rows(runtime, "concept", "globex")) == 2
