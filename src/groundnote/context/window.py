"""Half-open validity windows `[from, to)` over UTC instants, as the recipe and terms declare.

A bare date means midnight UTC of that day, so a date and an instant compare as text.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from groundnote.domain.clock import format_instant

__all__ = ["Instant", "Window", "Windowed", "to_instant"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def to_instant(value: Any) -> str:
    """`YYYY-MM-DDTHH:MM:SS.sssZ` for a date, a datetime or their ISO text."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return format_instant(moment)
    if isinstance(value, date):
        return f"{value.isoformat()}T00:00:00.000Z"
    if isinstance(value, str):
        text = value.strip()
        try:
            if _DAY.fullmatch(text):  # a day of the calendar, not only of the pattern
                return to_instant(date.fromisoformat(text))
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"{value!r} is not a date or instant; write 2026-01-31 or 2026-01-31T09:00:00Z"
            ) from None
        return to_instant(parsed)
    raise ValueError(f"{value!r} is not a date or instant")


Instant = Annotated[str, BeforeValidator(to_instant)]


class Windowed(BaseModel):
    """What holds for a window `[from, to)`: a term's standing, a collection's governance. The
    recipe and the terms source spell the bounds `from` and `to`; to must lie after from."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    valid_from: Instant | None = Field(None, alias="from")
    valid_to: Instant | None = Field(None, alias="to")

    @model_validator(mode="after")
    def _ordered(self) -> Windowed:
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("to must lie after from: the window is [from, to)")
        return self

    @property
    def window(self) -> Window:
        return Window(valid_from=self.valid_from, valid_to=self.valid_to)


class Window(Windowed):
    """`[from, to)`: from is inclusive, to exclusive; a missing bound is open."""

    def contains(self, instant: str) -> bool:
        if self.valid_from is not None and instant < self.valid_from:
            return False
        return self.valid_to is None or instant < self.valid_to
