"""The supplier's mail the browser tests read on its source page and reach from a rule."""

from __future__ import annotations

from typing import Any

from tests.conftest import Call

SUPPLIER_MAIL = "mail:<lieferung-2025@kunde.example>"
SUPPLIER_BODY = "Ab dem 1. März liefern wir nur noch frei Haus."


def store_supplier_mail(call: Call, *, attachment_text: str | None) -> None:
    """Store the mail in scope sales; with `attachment_text`, a PDF whose extracted text it is."""
    source: dict[str, Any] = {
        "kind": "mail",
        "id": SUPPLIER_MAIL,
        "subject": "Lieferbedingungen ab März",
        "sender": "ines@kunde.example",
        "to": ["vertrieb@firma.example"],
        "sent_at": "2025-02-20T08:15:00Z",
        "body": SUPPLIER_BODY,
    }
    if attachment_text is not None:
        source["attachments"] = [
            {
                "filename": "konditionen.pdf",
                "media_type": "application/pdf",
                "text": attachment_text,
            }
        ]
    call("core.store_source", scope="sales", source=source)
