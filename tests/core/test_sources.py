"""store_source: mails and meetings with attachments, idempotent, refused when changed."""

from __future__ import annotations

import hashlib

import pytest

from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.store.sql import IntegrityError
from tests.conftest import Call
from tests.core.conftest import mail, meeting, rows


def test_a_mail_is_stored_with_its_attachments(call: Call, runtime: Runtime) -> None:
    out = call(
        "core.store_source",
        scope="sales",
        source=mail(
            1, attachments=[{"filename": "staffel.csv", "media_type": "text/csv", "text": "a;b"}]
        ),
    )
    assert out["ref"] == "source/mail:<m1@example.org>"
    assert out["kind"] == "mail" and out["stored"] is True
    assert out["day"] == "2026-10-01"
    [att] = out["attachments"]
    assert att["ref"] == "attachment/mail:<m1@example.org>#1"
    assert att["size"] == 3 and att["sha256"] == hashlib.sha256(b"a;b").hexdigest()
    assert att["has_text"] is True
    assert out["next"][0]["tool"] == "propose_rule"
    assert rows(runtime, "SELECT operation, outcome, refs FROM search_log") == [
        ("store_source", "ok", '["source/mail:<m1@example.org>"]')
    ]


def test_the_day_of_a_mail_is_counted_in_the_configured_zone(call: Call) -> None:
    late = call(
        "core.store_source", scope="sales", source=mail(2, sent_at="2026-10-01T23:30:00.000Z")
    )
    assert late["day"] == "2026-10-02"  # 01:30 in Berlin


def test_a_meeting_is_stored(call: Call, runtime: Runtime) -> None:
    out = call("core.store_source", scope="sales", source=meeting("m-17"))
    assert out["ref"] == "source/jamie:m-17" and out["kind"] == "meeting"
    assert out["day"] == "2026-10-02" and out["title"] == "Vertriebsrunde"
    assert rows(runtime, "SELECT participants FROM source") == [('["Ines Kraft", "Tom Berger"]',)]


def test_storing_the_same_content_again_changes_nothing(call: Call, runtime: Runtime) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    again = call("core.store_source", scope="sales", source=mail(1))
    assert again["stored"] is False
    assert rows(runtime, "SELECT count(*) FROM source") == [(1,)]


def test_different_content_under_an_existing_id_is_refused(call: Call, runtime: Runtime) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    with pytest.raises(GroundnoteError) as exc:
        call("core.store_source", scope="sales", source=mail(1, body="Anderer Text."))
    body = exc.value.body()
    assert body["error"] == "validation-failed"
    assert body["existing"] == "source/mail:<m1@example.org>"
    assert "source/mail:<m1@example.org>" in body["remedy"]
    assert rows(runtime, "SELECT body FROM source") == [(mail(1)["body"],)]


def test_a_reply_names_the_mail_it_answers(call: Call) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    reply = call("core.store_source", scope="sales", source=mail(2, in_reply_to="<m1@example.org>"))
    assert reply["in_reply_to"] == "source/mail:<m1@example.org>"


@pytest.mark.parametrize(
    "source",
    [
        mail(1, id="mail:m1@example.org"),  # no angle brackets
        mail(1, id="mail:<m 1@example.org>"),
        mail(1, id="<m1@example.org>"),
        mail(1, in_reply_to="m0@example.org"),
        meeting("bad id"),
        mail(1, attachments=[{"filename": "x.pdf", "media_type": "application/pdf"}]),
        mail(1, unknown="x"),
    ],
)
def test_malformed_sources_are_refused_and_write_nothing(
    call: Call, runtime: Runtime, source: dict[str, object]
) -> None:
    with pytest.raises(GroundnoteError) as exc:
        call("core.store_source", scope="sales", source=source)
    assert exc.value.body()["error"] == "validation-failed"
    assert rows(runtime, "SELECT count(*) FROM source") == [(0,)]
    assert rows(runtime, "SELECT count(*) FROM source_attachment") == [(0,)]


def test_a_stored_source_cannot_be_changed_in_the_database(call: Call, runtime: Runtime) -> None:
    call("core.store_source", scope="sales", source=mail(1))
    with (
        pytest.raises(IntegrityError, match="append-only"),
        runtime.home.scope_db("sales").write() as conn,
    ):
        conn.execute("UPDATE source SET body = 'x'")
