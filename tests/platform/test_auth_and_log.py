"""Grants: rights per scope, channels, revocation, expiry; the operation log row of every call."""

from __future__ import annotations

import json
import threading

import pytest

from groundnote.auth import Right, create_grant, revoke_grant
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.store.sql import IntegrityError, Row
from tests.conftest import Call, make_principal


def _log_rows(runtime: Runtime, scope: str | None) -> list[Row]:
    """The unit's log rows, by time (the tests here read one row a unit: the clock is fixed, and
    nothing but SQLite's rowid orders rows of one instant)."""
    db = runtime.home.scope_db(scope) if scope else runtime.home.instance
    with db.read() as conn:
        return conn.execute("SELECT * FROM search_log ORDER BY at, id").fetchall()


def test_every_call_writes_one_log_row(call: Call, runtime: Runtime, scope: str) -> None:
    call("core.status", scope=scope)
    with pytest.raises(GroundnoteError):
        call("core.status", scope=scope, bogus=1)
    rows = _log_rows(runtime, scope)
    assert [(r["operation"], r["outcome"], r["channel"], r["grant_id"]) for r in rows] == [
        ("status", "ok", "mcp", "grant:agent")
    ]
    refused = _log_rows(runtime, None)
    assert [(r["operation"], r["outcome"]) for r in refused] == [
        ("core.status", "validation-failed")
    ]
    assert len(rows[0]["input_sha256"]) == 64


@pytest.mark.postgresql_only("SQLite has one writer per file: a log row waits for it")
def test_a_read_is_logged_while_a_writer_holds_the_scope(
    call: Call, runtime: Runtime, scope: str
) -> None:
    """A read's log row commits by itself, outside the gate row (`Database.append`): a long
    write (an import) neither holds it up nor, past the busy timeout, loses it."""
    db = runtime.home.scope_db(scope)
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:
        with db.write():
            holding.set()
            done.wait(30)

    writer = threading.Thread(target=hold)
    writer.start()
    try:
        assert holding.wait(10)
        call("core.status", scope=scope)
        assert [r["operation"] for r in _log_rows(runtime, scope)] == ["status"]
    finally:
        done.set()
        writer.join()


def test_the_log_is_append_only(call: Call, runtime: Runtime, scope: str) -> None:
    call("core.status", scope=scope)
    with runtime.home.instance.write() as conn:
        conn.execute(
            "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, input_sha256) "
            "VALUES ('s-1', '2026-11-30T09:00:00.000Z', 'g', 'cli', 'x', 'ok', 'h')"
        )
    with (
        pytest.raises(IntegrityError, match="append-only"),
        runtime.home.instance.write() as conn,
    ):
        conn.execute("DELETE FROM search_log")


def test_rights_and_channels_are_checked_before_the_handler(runtime: Runtime, scope: str) -> None:
    cap = runtime.registry.get("core.status")
    reader, _ = make_principal(runtime, "reader", {scope: Right.READ}, ["api"])
    assert runtime.invoke(cap, {"scope": scope}, principal=reader, channel="api")
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(cap, {"scope": scope}, principal=reader, channel="mcp")
    assert exc.value.code == "channel-not-allowed"
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(cap, {"scope": scope}, principal=None, channel="api")
    assert exc.value.code == "auth-required" and exc.value.status == 401


def test_revoked_and_expired_tokens_fail_closed(runtime: Runtime, scope: str) -> None:
    db = runtime.home.instance
    _, token = create_grant(
        db,
        "temp",
        rights={scope: Right.READ},
        channels=["api"],
        org="local",
        now="2026-11-30T09:00:00.000Z",
        expires_at="2026-11-30T08:00:00.000Z",
    )
    assert runtime.authenticate(token) is None
    _, token = create_grant(
        db,
        "gone",
        rights={scope: Right.READ},
        channels=["api"],
        org="local",
        now="2026-11-30T09:00:00.000Z",
    )
    assert runtime.authenticate(token) is not None
    revoke_grant(db, "gone", "2026-11-30T09:00:00.000Z")
    assert runtime.authenticate(token) is None
    assert runtime.authenticate("gn_unknown") is None
    assert runtime.authenticate("a.b.c") is None  # a JWT without a configured secret


def test_only_the_hash_of_a_token_is_stored(runtime: Runtime, scope: str) -> None:
    _, token = make_principal(runtime, "hashed", {scope: Right.READ}, ["api"])
    with runtime.home.instance.read() as conn:
        dump = json.dumps([tuple(r) for r in conn.execute("SELECT * FROM grant_")])
    assert token not in dump
