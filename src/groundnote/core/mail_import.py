"""Read real mail (`.eml` files, mbox archives) into mail sources, with the stdlib `email`.

Headers are decoded (RFC 2047), multipart bodies give their plain text (HTML reduced to its
text when there is no plain part), attachments keep filename, media type, size and sha256,
and their text where they are text. A message with a broken structure (a missing boundary,
bad base64, a part without header separator) or without a usable Message-ID is reported and
never stored, so a half-read mail can never become evidence.
"""

from __future__ import annotations

import email
import email.errors
import hashlib
import mailbox
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from email import policy
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

from pydantic import ValidationError

from groundnote.core.sources import AttachmentIn, MailIn, SourceOut
from groundnote.domain.clock import format_instant
from groundnote.domain.errors import GroundnoteError

__all__ = ["MailImportReport", "MailProblem", "ParsedMail", "import_mail", "parse_mail_files"]

ProgressCallback = Callable[[int, int], None]
"""Called as `progress(done, total)` after each message is handled."""

_MSGID = re.compile(r"<[^<>\s]+>")
_BROKEN = (
    email.errors.StartBoundaryNotFoundDefect,
    email.errors.CloseBoundaryNotFoundDefect,
    email.errors.MultipartInvariantViolationDefect,
    email.errors.NoBoundaryInMultipartDefect,
    email.errors.MissingHeaderBodySeparatorDefect,
    email.errors.FirstHeaderLineIsContinuationDefect,
    email.errors.InvalidBase64PaddingDefect,
    email.errors.InvalidBase64CharactersDefect,
    email.errors.InvalidBase64LengthDefect,
)
# Media types whose content is text although their major type is not `text`.
_TEXTUAL = {"application/json", "application/xml", "application/csv", "message/rfc822"}


@dataclass(frozen=True)
class MailProblem:
    file: str
    index: int | None  # the message's position in an mbox, from 1; None for an .eml file
    message_id: str | None
    problem: str


@dataclass(frozen=True)
class ParsedMail:
    file: str
    index: int | None
    mail: MailIn


@dataclass
class MailImportReport:
    stored: int = 0
    unchanged: int = 0
    refs: list[str] = field(default_factory=list)
    problems: list[MailProblem] = field(default_factory=list)


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _html_text(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    found: list[str] = []
    for header in msg.get_all(name, []):
        addresses = getattr(header, "addresses", None)
        if addresses:
            found.extend(str(a) for a in addresses if str(a))
        elif str(header).strip():
            found.append(str(header).strip())
    return found


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    content = part.get_content()
    text = content if isinstance(content, str) else ""
    return _html_text(text) if part.get_content_type() == "text/html" else text


def _attachments(msg: EmailMessage) -> list[AttachmentIn]:
    out = []
    for n, part in enumerate(msg.iter_attachments(), start=1):
        media_type = part.get_content_type()
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else part.as_bytes()
        text: str | None = None
        if part.get_content_maintype() == "text" or media_type in _TEXTUAL:
            charset = part.get_content_charset() or "utf-8"
            try:
                text = data.decode(charset)
            except (LookupError, UnicodeDecodeError):
                text = None  # the file is kept; only its text is unreadable
        out.append(
            AttachmentIn(
                filename=part.get_filename() or f"attachment-{n}",
                media_type=media_type,
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
                text=text,
            )
        )
    return out


def _defects(msg: EmailMessage) -> list[str]:
    return [type(d).__name__ for part in msg.walk() for d in part.defects if isinstance(d, _BROKEN)]


def _to_mail(msg: EmailMessage) -> MailIn:
    """The mail source of one message; raises ValueError with the problem."""
    raw_id = str(msg.get("Message-ID") or "").strip()
    if not _MSGID.fullmatch(raw_id):
        raise ValueError(f"malformed or missing Message-ID {raw_id!r}")
    attachments = _attachments(msg)  # decoding first: bad base64 shows as a defect only then
    body = _body(msg)
    broken = _defects(msg)
    if broken:
        raise ValueError(f"broken message structure ({', '.join(sorted(set(broken)))})")
    date = msg.get("Date")
    sent_at = None
    moment = getattr(date, "datetime", None) if date is not None else None
    if moment is not None:
        sent_at = format_instant(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    reply = _MSGID.findall(str(msg.get("In-Reply-To") or ""))
    senders = _addresses(msg, "From")
    return MailIn(
        id=f"mail:{raw_id}",
        subject=str(msg.get("Subject") or ""),
        sender=senders[0] if senders else None,
        to=_addresses(msg, "To"),
        cc=_addresses(msg, "Cc"),
        sent_at=sent_at,
        body=body,
        in_reply_to=reply[0] if reply else None,
        references=_MSGID.findall(str(msg.get("References") or "")),
        attachments=attachments,
    )


def _messages(path: Path) -> Iterator[tuple[int | None, bytes]]:
    with path.open("rb") as handle:
        is_mbox = handle.read(5) == b"From "
    if not is_mbox:
        yield None, path.read_bytes()
        return
    box = mailbox.mbox(path, create=False)
    try:
        for index, key in enumerate(box.keys(), start=1):
            yield index, box.get_bytes(key)
    finally:
        box.close()


def parse_mail_files(files: Sequence[Path]) -> tuple[list[ParsedMail], list[MailProblem]]:
    """Every message of the files as a mail source, and a problem for each one that is not."""
    parsed: list[ParsedMail] = []
    problems: list[MailProblem] = []
    for path in files:
        try:
            messages = list(_messages(path))
        except OSError as exc:
            problems.append(
                MailProblem(str(path), None, None, f"cannot read the file: {exc.strerror}")
            )
            continue
        for index, data in messages:
            msg = email.message_from_bytes(data, policy=policy.default)
            assert isinstance(msg, EmailMessage)
            message_id = str(msg.get("Message-ID") or "").strip() or None
            try:
                parsed.append(ParsedMail(str(path), index, _to_mail(msg)))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                problems.append(
                    MailProblem(str(path), index, message_id, f"{where}: {first['msg']}")
                )
            except (ValueError, LookupError, UnicodeError, email.errors.MessageError) as exc:
                problems.append(MailProblem(str(path), index, message_id, str(exc)))
    return parsed, problems


def import_mail(
    files: Sequence[Path],
    store: Callable[[MailIn], SourceOut],
    *,
    progress: ProgressCallback | None = None,
) -> MailImportReport:
    """Parse the files, then store each good message with `store`, one source per message.

    `store` is the caller's way in, normally `core.store_source` through the registry, so every
    message is checked, logged and refused exactly as over any other surface. A refusal is a
    problem of that message; the others are stored all the same.
    """
    parsed, problems = parse_mail_files(files)
    report = MailImportReport(problems=problems)
    total = len(parsed)
    for done, item in enumerate(parsed, start=1):
        try:
            out = store(item.mail)
        except GroundnoteError as exc:
            report.problems.append(MailProblem(item.file, item.index, item.mail.id, exc.message))
        else:
            report.refs.append(out.ref)
            if out.stored:
                report.stored += 1
            else:
                report.unchanged += 1
        if progress is not None:
            progress(done, total)
    return report
