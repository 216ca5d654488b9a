"""Text that shows what it says: no NUL, no control characters, no bidirectional overrides.

A right-to-left override (U+202E) makes "Invoice \u202egnp.exe" show as "Invoice exe.png" on
the approval page, misleading the person who decides; a NUL or another control character
hides or cuts text in logs, terminals and pages. Names, aliases and other one-line fields
refuse them with line breaks; statements and reasons refuse them but keep line breaks.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

__all__ = ["OneLine", "Prose", "visible_line", "visible_text"]

# C0 controls but tab and line breaks, DEL, C1 controls; the bidi embeddings, overrides and
# isolates (U+202A–U+202E, U+2066–U+2069) and the Arabic letter mark; lone surrogates.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u061c\ud800-\udfff]"
)
_BREAKS = re.compile("[\t\n\r\u2028\u2029\x85]")


def _refuse(value: str, pattern: re.Pattern[str], what: str) -> None:
    found = pattern.search(value)
    if found is not None:
        raise ValueError(
            f"holds {what} U+{ord(found.group()):04X} at position {found.start()}; "
            "send the text without it"
        )


def visible_text(value: str) -> str:
    """Text that may span lines but hides nothing."""
    _refuse(value, _HIDDEN, "the invisible or reordering character")
    return value


def visible_line(value: str) -> str:
    """One line of text that hides nothing."""
    visible_text(value)
    _refuse(value, _BREAKS, "the line break")
    return value


OneLine = Annotated[str, AfterValidator(visible_line)]
Prose = Annotated[str, AfterValidator(visible_text)]
