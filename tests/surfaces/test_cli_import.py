"""`groundnote import mail` files real .eml and mbox files through store_source."""

from __future__ import annotations

import json
import mailbox
from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner

from groundnote.surfaces.cli.main import cli


def _mail(message_id: str, subject: str, reply_to: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["Message-ID"] = message_id
    msg["Subject"] = subject
    msg["From"] = "Jana Köhler <jana@example.org>"
    msg["To"] = "vertrieb@example.org"
    msg["Date"] = "Mon, 02 Nov 2026 10:00:00 +0100"
    if reply_to:
        msg["In-Reply-To"] = reply_to
    msg.set_content(f"{subject}: Rabatte über 10 % nur mit Freigabe der Leitung.")
    return msg


def test_import_mail_files_eml_and_mbox(tmp_path: Path, home_path: Path, scope: str) -> None:
    eml = tmp_path / "first.eml"
    eml.write_bytes(_mail("<a1@example.org>", "Rabattregel").as_bytes())
    box = mailbox.mbox(str(tmp_path / "thread.mbox"))
    box.add(_mail("<a2@example.org>", "Re: Rabattregel", reply_to="<a1@example.org>"))
    box.add(_mail("not a message id", "kaputt"))
    box.flush()
    box.close()

    runner = CliRunner()
    args = [
        "--home",
        str(home_path),
        "import",
        "mail",
        "--scope",
        scope,
        str(eml),
        str(tmp_path / "thread.mbox"),
    ]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1, result.output  # one message had a problem
    assert "stored 2, unchanged 0, problems 1" in result.stdout
    assert "message 2" in result.stderr

    again = runner.invoke(cli, args)
    assert "stored 0, unchanged 2, problems 1" in again.stdout

    listing = runner.invoke(
        cli, ["--home", str(home_path), "status", "--scope", scope, "--output", "json"]
    )
    assert json.loads(listing.stdout)["scopes"][0]["rows"]["source"] == 2
