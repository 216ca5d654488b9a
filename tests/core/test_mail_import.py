"""import_mail: .eml files and mbox archives through store_source; broken messages never stored."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path
from typing import Any

from groundnote.core import import_mail
from groundnote.core.sources import MailIn, SourceOut
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.core.conftest import rows


def _message(n: int, *, reply_to: int | None = None, attach: bool = False) -> bytes:
    msg = EmailMessage()
    msg["Message-ID"] = f"<m{n}@example.org>"
    msg["Subject"] = "Rückfrage zur Rabattstaffel für Österreich"
    msg["From"] = "Jürgen Weiß <juergen@example.org>"
    msg["To"] = "Vertrieb <vertrieb@example.org>, ines@example.org"
    msg["Date"] = "Tue, 01 Sep 2026 10:15:00 +0200"
    if reply_to:
        msg["In-Reply-To"] = f"<m{reply_to}@example.org>"
        msg["References"] = f"<m{reply_to}@example.org>"
    msg.set_content("Für Österreich gilt die Staffel B.\n")
    msg.add_alternative("<p>Für <b>Österreich</b> gilt die Staffel B.</p>", subtype="html")
    if attach:
        msg.add_attachment(
            b"Staffel B;3 %\n", maintype="text", subtype="csv", filename="staffel.csv"
        )
        msg.add_attachment(
            b"%PDF-1.4 binary", maintype="application", subtype="pdf", filename="vertrag.pdf"
        )
    return msg.as_bytes()


BROKEN = (
    b"Message-ID: <broken@example.org>\r\nSubject: kaputt\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="XYZ"\r\n\r\n'
    b"no boundary ever appears here\r\n"
)


def _mbox(path: Path, messages: list[bytes]) -> Path:
    with path.open("wb") as handle:
        for data in messages:
            handle.write(b"From sender@example.org Tue Sep  1 10:15:00 2026\n")
            handle.write(data.replace(b"\r\n", b"\n").replace(b"\nFrom ", b"\n>From "))
            handle.write(b"\n")
    return path


def _store(runtime: Runtime, call: Call) -> Any:
    def store(mail: MailIn) -> SourceOut:
        out = call("core.store_source", channel="cli", scope="sales", source=mail.model_dump())
        return SourceOut.model_validate(out)

    return store


def test_an_eml_with_attachments_is_stored_decoded(
    tmp_path: Path, runtime: Runtime, call: Call
) -> None:
    eml = tmp_path / "one.eml"
    eml.write_bytes(_message(1, attach=True))
    seen: list[tuple[int, int]] = []
    report = import_mail(
        [eml], _store(runtime, call), progress=lambda done, total: seen.append((done, total))
    )
    assert (report.stored, report.unchanged, report.problems) == (1, 0, [])
    assert seen == [(1, 1)]
    [(title, sender, recipients, body, sent_at, day)] = rows(
        runtime, "SELECT title, sender, recipients, body, sent_at, day FROM source"
    )
    assert title == "Rückfrage zur Rabattstaffel für Österreich"
    assert sender == "Jürgen Weiß <juergen@example.org>"
    assert recipients == '["Vertrieb <vertrieb@example.org>", "ines@example.org"]'
    assert body == "Für Österreich gilt die Staffel B.\n"
    assert (sent_at, day) == ("2026-09-01T08:15:00.000Z", "2026-09-01")
    assert rows(
        runtime, "SELECT n, filename, media_type, text IS NOT NULL FROM source_attachment"
    ) == [
        (1, "staffel.csv", "text/csv", 1),
        (2, "vertrag.pdf", "application/pdf", 0),
    ]


def test_an_mbox_with_a_broken_message_stores_the_others(
    tmp_path: Path, runtime: Runtime, call: Call
) -> None:
    box = _mbox(tmp_path / "archive.mbox", [_message(1), BROKEN, _message(2, reply_to=1)])
    report = import_mail([box], _store(runtime, call))
    assert report.stored == 2
    [problem] = report.problems
    assert (problem.index, problem.message_id) == (2, "<broken@example.org>")
    assert "broken message structure" in problem.problem
    assert rows(runtime, "SELECT id, in_reply_to FROM source ORDER BY seq") == [
        ("mail:<m1@example.org>", None),
        ("mail:<m2@example.org>", "<m1@example.org>"),
    ]


def test_bad_base64_and_a_malformed_message_id_are_problems(
    tmp_path: Path, runtime: Runtime, call: Call
) -> None:
    bad64 = (
        b"Message-ID: <b64@example.org>\nSubject: x\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: text/plain\n\nhallo\n'
        b"--B\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n"
        b'Content-Disposition: attachment; filename="a.pdf"\n\nJVBER!!!i0xLjQ=x\n--B--\n'
    )
    no_id = b"Message-ID: not-an-id\nSubject: x\n\nText\n"
    files = []
    for name, data in (("b64.eml", bad64), ("noid.eml", no_id)):
        (tmp_path / name).write_bytes(data)
        files.append(tmp_path / name)
    report = import_mail(files, _store(runtime, call))
    assert report.stored == 0
    assert [p.file.rsplit("/", 1)[1] for p in report.problems] == ["b64.eml", "noid.eml"]
    assert "Base64" in report.problems[0].problem
    assert "Message-ID" in report.problems[1].problem
    assert rows(runtime, "SELECT count(*) FROM source") == [(0,)]


def test_a_second_import_changes_nothing_and_a_refusal_is_a_problem(
    tmp_path: Path, runtime: Runtime, call: Call
) -> None:
    eml = tmp_path / "one.eml"
    eml.write_bytes(_message(1))
    import_mail([eml], _store(runtime, call))
    again = import_mail([eml], _store(runtime, call))
    assert (again.stored, again.unchanged) == (0, 1)
    eml.write_bytes(_message(1, attach=True))
    changed = import_mail([eml, tmp_path / "missing.eml"], _store(runtime, call))
    assert changed.problems[0].problem.startswith("cannot read the file")
    assert "stored already with different content" in changed.problems[1].problem


def test_html_only_mail_keeps_its_text(tmp_path: Path, runtime: Runtime, call: Call) -> None:
    msg = EmailMessage()
    msg["Message-ID"] = "<h@example.org>"
    msg["Subject"] = "=?utf-8?q?Gr=C3=BC=C3=9Fe?="
    msg.set_content(
        "<html><style>p{}</style><p>Erste Zeile</p><p>Zweite&nbsp;Zeile</p></html>", subtype="html"
    )
    (tmp_path / "h.eml").write_bytes(msg.as_bytes())
    assert import_mail([tmp_path / "h.eml"], _store(runtime, call)).stored == 1
    assert rows(runtime, "SELECT title, body FROM source") == [
        ("Grüße", "Erste Zeile\nZweite Zeile")
    ]
