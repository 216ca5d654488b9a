"""Ids and refs with the regexes of seed 000 §2, as pydantic-validated strings."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated

from pydantic import AfterValidator, StringConstraints

__all__ = [
    "ATTACHMENT_REF_RE",
    "DAY_RE",
    "ENTITY_ID_RE",
    "ENTITY_REF_RE",
    "INSTANT_RE",
    "LINK_ID_RE",
    "REVIEW_ID_RE",
    "RULE_ID_RE",
    "SCOPE_RE",
    "SOURCE_ID_RE",
    "Day",
    "EntityId",
    "EntityRef",
    "IdempotencyKey",
    "Instant",
    "LinkId",
    "ReviewId",
    "RuleId",
    "ScopeName",
    "SourceId",
    "format_seq_id",
    "real_day",
    "real_instant",
    "scope_of",
]

SCOPE_RE = r"^[a-z][a-z0-9-]{1,39}$"
ENTITY_ID_RE = r"^[a-z][a-z0-9-]{1,39}-e\d{4,}$"
ENTITY_REF_RE = r"^entity/[a-z][a-z0-9-]{1,39}-e\d{4,}(@[1-9]\d*)?$"
LINK_ID_RE = r"^[a-z][a-z0-9-]{1,39}-l\d{4,}$"
REVIEW_ID_RE = r"^[a-z][a-z0-9-]{1,39}-r\d{4,}$"
RULE_ID_RE = r"^[a-z][a-z0-9-]{1,39}-\d{4,}$"
SOURCE_ID_RE = r"^(jamie:[A-Za-z0-9._-]{1,200}|note:[A-Za-z0-9._-]{1,200}|mail:<[^<>\s]+>)$"
ATTACHMENT_REF_RE = (
    r"^(jamie:[A-Za-z0-9._-]{1,200}|note:[A-Za-z0-9._-]{1,200}|mail:<[^<>\s]+>)#[1-9]\d*$"
)
DAY_RE = r"^\d{4}-\d{2}-\d{2}$"
INSTANT_RE = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$"

ScopeName = Annotated[str, StringConstraints(pattern=SCOPE_RE)]
EntityId = Annotated[str, StringConstraints(pattern=ENTITY_ID_RE)]
EntityRef = Annotated[str, StringConstraints(pattern=ENTITY_REF_RE)]
LinkId = Annotated[str, StringConstraints(pattern=LINK_ID_RE)]
ReviewId = Annotated[str, StringConstraints(pattern=REVIEW_ID_RE)]
RuleId = Annotated[str, StringConstraints(pattern=RULE_ID_RE)]
SourceId = Annotated[str, StringConstraints(pattern=SOURCE_ID_RE)]


def real_day(value: str) -> str:
    """A day that is on the calendar: the pattern alone lets 2026-02-31 and 0000-00-00 by."""
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a day of the calendar (YYYY-MM-DD)") from None
    return value


def real_instant(value: str) -> str:
    """A UTC instant that is on the calendar and the clock (hour ≤ 23, minute and second ≤ 59)."""
    try:
        datetime.fromisoformat(value.removesuffix("Z") + "+00:00")
    except ValueError:
        raise ValueError(
            f"{value!r} is not an instant of the calendar (YYYY-MM-DDTHH:MM:SSZ, UTC)"
        ) from None
    return value


# Printable ASCII without spaces, as the Idempotency-Key header carries it (a UUID, say).
IdempotencyKey = Annotated[
    str, StringConstraints(min_length=1, max_length=200, pattern=r"^[\x21-\x7e]+$")
]
Day = Annotated[str, StringConstraints(pattern=DAY_RE), AfterValidator(real_day)]
Instant = Annotated[str, StringConstraints(pattern=INSTANT_RE), AfterValidator(real_instant)]

_SUFFIX = re.compile(r"^[a-z]?\Z")


def format_seq_id(scope: str, marker: str, seq: int) -> str:
    """`<scope>-<marker><seq padded to 4>`: `sales-e0007`, `sales-l0042`, rules `sales-0001`."""
    if not _SUFFIX.match(marker):
        raise ValueError(f"id marker must be one lowercase letter or empty, not {marker!r}")
    return f"{scope}-{marker}{seq:04d}"


_REF_KIND = re.compile(r"^[a-z]+/")
_SEQ_SUFFIX = re.compile(r"-(?:[elr])?\d{4,}\Z")


def scope_of(item: str) -> str:
    """The scope an id or ref carries (seed 000 §2): `sales-e0007`, `entity/sales-e0007@3`,
    `link/sales-l0042`, `sales-r0001`, rule `sales-0001` → `sales`. Text that carries no
    scope comes back whole, and is then refused like any unknown scope."""
    bare = _REF_KIND.sub("", item, count=1).partition("@")[0]
    return _SEQ_SUFFIX.sub("", bare)
