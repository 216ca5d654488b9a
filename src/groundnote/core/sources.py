"""Sources: mails (`mail:<message-id>`), meetings (`jamie:<id>`) and notes (`note:<id>`, a short
text with date and author; DESIGN §15 P7) with attachments `#1…`.

A source never changes. Storing the same content again is a no-op; different content under
an existing id is refused, because a mail or a meeting record is evidence and evidence must
not move under the rules that cite it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, model_validator

from groundnote.core.fts import index_source
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import INSTANT_RE, Day, Instant
from groundnote.domain.text import OneLine
from groundnote.store.sql import Connection, Row

__all__ = [
    "INSTANT_RE",
    "MAX_ATTACHMENT_TEXT",
    "MAX_BODY",
    "MESSAGE_ID_RE",
    "Address",
    "AttachmentIn",
    "AttachmentOut",
    "MailIn",
    "MeetingIn",
    "MessageId",
    "NoteIn",
    "SourceOut",
    "attachment_ref",
    "attachment_rows",
    "attachments_of",
    "content_sha256",
    "insert_source",
    "read_source",
    "replied_to",
    "source_ref",
    "source_row",
]


MESSAGE_ID_RE = r"^<[^<>\s]+>$"
MAX_BODY = 1_000_000
MAX_ATTACHMENT_TEXT = 2_000_000

Address = Annotated[str, Field(min_length=1, max_length=320)]
MessageId = Annotated[str, Field(pattern=MESSAGE_ID_RE, max_length=998)]


def source_ref(source_id: str) -> str:
    return f"source/{source_id}"


def attachment_ref(source_id: str, n: int) -> str:
    return f"attachment/{source_id}#{n}"


class AttachmentIn(StrictModel):
    filename: OneLine = Field(min_length=1, max_length=255)
    media_type: str = Field(pattern=r"^[A-Za-z0-9][\w.+-]*/[\w.+-]+$", max_length=127)
    size: int | None = Field(None, ge=0, description="Bytes of the file; omitted: those of text.")
    sha256: str | None = Field(
        None, pattern=r"^[0-9a-f]{64}$", description="Of the file; omitted: of text."
    )
    text: str | None = Field(
        None, max_length=MAX_ATTACHMENT_TEXT, description="The extracted text, where there is any."
    )

    @model_validator(mode="after")
    def _described(self) -> AttachmentIn:
        if self.text is None and (self.size is None or self.sha256 is None):
            raise ValueError("an attachment without text needs size and sha256 of the file")
        return self


class MailIn(StrictModel):
    kind: Literal["mail"] = "mail"
    id: str = Field(
        pattern=r"^mail:<[^<>\s]+>$",
        max_length=1003,
        description="mail:<message-id>, the Message-ID header with its angle brackets.",
    )
    subject: str = Field("", max_length=998)
    sender: Address | None = Field(None, description="The From header.")
    to: list[Address] = Field(default_factory=list, max_length=500)
    cc: list[Address] = Field(default_factory=list, max_length=500)
    sent_at: Instant | None = Field(None, description="UTC instant of the Date header.")
    body: str = Field("", max_length=MAX_BODY, description="The body as plain text.")
    in_reply_to: MessageId | None = Field(None, description="The In-Reply-To header: <message-id>.")
    references: list[MessageId] = Field(default_factory=list, max_length=200)
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=50)


class MeetingIn(StrictModel):
    kind: Literal["meeting"] = "meeting"
    id: str = Field(pattern=r"^jamie:[A-Za-z0-9._-]{1,200}$", description="jamie:<meeting id>.")
    title: OneLine = Field(min_length=1, max_length=500)
    date: Day
    participants: list[Address] = Field(default_factory=list, max_length=500)
    transcript: str = Field(min_length=1, max_length=MAX_BODY)
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=50)


class NoteIn(StrictModel):
    """An observation: a short text someone wrote down on a day (DESIGN §15 P7)."""

    kind: Literal["note"] = "note"
    id: str = Field(pattern=r"^note:[A-Za-z0-9._-]{1,200}$", description="note:<id>.")
    title: OneLine = Field(min_length=1, max_length=500)
    date: Day
    author: Address
    text: str = Field(min_length=1, max_length=10_000)
    attachments: list[AttachmentIn] = Field(default_factory=list, max_length=50)


class AttachmentOut(BaseModel):
    ref: str = Field(description="attachment/<source id>#<n>: cite it as evidence with this.")
    n: int
    filename: str
    media_type: str
    size: int
    sha256: str
    has_text: bool


class SourceOut(BaseModel):
    ref: str = Field(description="source/<id>: cite it as evidence with this.")
    id: str
    kind: Literal["mail", "meeting", "note"]
    title: str
    day: str
    sender: str | None
    in_reply_to: str | None = Field(
        description="The source ref of the mail this one answers, if stored."
    )
    attachments: list[AttachmentOut]
    stored: bool = Field(
        description="false: it was stored before with the same content; nothing changed."
    )
    next: list[Next] = Field(default_factory=list, max_length=3)


def _day_of(instant: str, zone: str) -> str:
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00"))
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d")


def attachment_rows(items: list[AttachmentIn]) -> list[dict[str, Any]]:
    rows = []
    for n, item in enumerate(items, start=1):
        data = item.text.encode("utf-8") if item.text is not None else b""
        rows.append(
            {
                "n": n,
                "filename": item.filename,
                "media_type": item.media_type.lower(),
                "size": item.size if item.size is not None else len(data),
                "sha256": item.sha256 or hashlib.sha256(data).hexdigest(),
                "text": item.text,
            }
        )
    return rows


def source_row(value: MailIn | MeetingIn | NoteIn, zone: str, today: str) -> dict[str, Any]:
    if isinstance(value, MailIn):
        return {
            "id": value.id,
            "kind": "mail",
            "title": value.subject,
            "day": _day_of(value.sent_at, zone) if value.sent_at else today,
            "sent_at": value.sent_at,
            "sender": value.sender,
            "recipients": json.dumps(value.to, ensure_ascii=False),
            "cc": json.dumps(value.cc, ensure_ascii=False),
            "in_reply_to": value.in_reply_to,
            "refs": json.dumps(value.references, ensure_ascii=False),
            "participants": "[]",
            "body": value.body,
        }
    if isinstance(value, NoteIn):
        return {
            "id": value.id,
            "kind": "note",
            "title": value.title,
            "day": value.date,
            "sent_at": None,
            "sender": value.author,
            "recipients": "[]",
            "cc": "[]",
            "in_reply_to": None,
            "refs": "[]",
            "participants": "[]",
            "body": value.text,
        }
    return {
        "id": value.id,
        "kind": "meeting",
        "title": value.title,
        "day": value.date,
        "sent_at": None,
        "sender": None,
        "recipients": "[]",
        "cc": "[]",
        "in_reply_to": None,
        "refs": "[]",
        "participants": json.dumps(value.participants, ensure_ascii=False),
        "body": value.transcript,
    }


def content_sha256(row: dict[str, Any], attachments: list[dict[str, Any]]) -> str:
    canonical = json.dumps([row, attachments], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def insert_source(
    conn: Connection,
    row: dict[str, Any],
    attachments: list[dict[str, Any]],
    *,
    index: bool = True,
) -> int:
    """Write a source row (with its seq) and its attachments, and index their text.

    With `index=False` the caller indexes it later (`fts.index_sources`), as an import does.
    """
    seq = (
        row.get("seq") or conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM source").fetchone()[0]
    )
    columns = {**row, "seq": seq}
    names = ", ".join(columns)
    conn.execute(
        f"INSERT INTO source ({names}) VALUES ({', '.join('?' for _ in columns)})",
        list(columns.values()),
    )
    for att in attachments:
        conn.execute(
            "INSERT INTO source_attachment (source_id, n, filename, media_type, size, sha256, text) "
            "VALUES (?,?,?,?,?,?,?)",
            (
                row["id"],
                att["n"],
                att["filename"],
                att["media_type"],
                att["size"],
                att["sha256"],
                att["text"],
            ),
        )
    if index:
        texts = [a["text"] for a in attachments if a["text"] is not None]
        index_source(conn, int(seq), row["title"], row["body"], texts)
    return int(seq)


def read_source(conn: Connection, source_id: str, *, stored: bool = True) -> SourceOut | None:
    row = conn.execute("SELECT * FROM source WHERE id = ?", (source_id,)).fetchone()
    if row is None:
        return None
    parent = replied_to(conn, row)
    atts = [
        AttachmentOut(
            ref=attachment_ref(source_id, a["n"]),
            n=a["n"],
            filename=a["filename"],
            media_type=a["media_type"],
            size=a["size"],
            sha256=a["sha256"],
            has_text=a["text"] is not None,
        )
        for a in attachments_of(conn, source_id)
    ]
    return SourceOut(
        ref=source_ref(source_id),
        id=source_id,
        kind=row["kind"],
        title=row["title"],
        day=row["day"],
        sender=row["sender"],
        in_reply_to=source_ref(parent) if parent else None,
        attachments=atts,
        stored=stored,
    )


def replied_to(conn: Connection, row: Row) -> str | None:
    """The id of the stored mail this source answers, or None (not a reply, or not stored)."""
    if not row["in_reply_to"]:
        return None
    found = conn.execute(
        "SELECT id FROM source WHERE id = ?", ("mail:" + row["in_reply_to"],)
    ).fetchone()
    return str(found["id"]) if found else None


def attachments_of(conn: Connection, source_id: str) -> list[Row]:
    """A source's attachment rows, in their order."""
    return conn.execute(
        "SELECT * FROM source_attachment WHERE source_id = ? ORDER BY n", (source_id,)
    ).fetchall()
