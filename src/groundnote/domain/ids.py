"""Ids and refs with the regexes of seed 000 §2, as pydantic-validated strings."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import StringConstraints

__all__ = [
    "ATTACHMENT_REF_RE",
    "DAY_RE",
    "ENTITY_ID_RE",
    "ENTITY_REF_RE",
    "LINK_ID_RE",
    "REVIEW_ID_RE",
    "RULE_ID_RE",
    "SCOPE_RE",
    "SOURCE_ID_RE",
    "Day",
    "EntityId",
    "EntityRef",
    "LinkId",
    "ReviewId",
    "RuleId",
    "ScopeName",
    "SourceId",
    "format_seq_id",
    "scope_of",
]

SCOPE_RE = r"^[a-z][a-z0-9-]{1,39}$"
ENTITY_ID_RE = r"^[a-z][a-z0-9-]{1,39}-e\d{4,}$"
ENTITY_REF_RE = r"^entity/[a-z][a-z0-9-]{1,39}-e\d{4,}(@[1-9]\d*)?$"
LINK_ID_RE = r"^[a-z][a-z0-9-]{1,39}-l\d{4,}$"
REVIEW_ID_RE = r"^[a-z][a-z0-9-]{1,39}-r\d{4,}$"
RULE_ID_RE = r"^[a-z][a-z0-9-]{1,39}-\d{4,}$"
SOURCE_ID_RE = r"^(jamie:[A-Za-z0-9._-]{1,200}|mail:<[^<>\s]+>)$"
ATTACHMENT_REF_RE = r"^(jamie:[A-Za-z0-9._-]{1,200}|mail:<[^<>\s]+>)#[1-9]\d*$"
DAY_RE = r"^\d{4}-\d{2}-\d{2}$"

ScopeName = Annotated[str, StringConstraints(pattern=SCOPE_RE)]
EntityId = Annotated[str, StringConstraints(pattern=ENTITY_ID_RE)]
EntityRef = Annotated[str, StringConstraints(pattern=ENTITY_REF_RE)]
LinkId = Annotated[str, StringConstraints(pattern=LINK_ID_RE)]
ReviewId = Annotated[str, StringConstraints(pattern=REVIEW_ID_RE)]
RuleId = Annotated[str, StringConstraints(pattern=RULE_ID_RE)]
SourceId = Annotated[str, StringConstraints(pattern=SOURCE_ID_RE)]
Day = Annotated[str, StringConstraints(pattern=DAY_RE)]

_SUFFIX = re.compile(r"^[a-z]?$")


def format_seq_id(scope: str, marker: str, seq: int) -> str:
    """`<scope>-<marker><seq padded to 4>`: `sales-e0007`, `sales-l0042`, rules `sales-0001`."""
    if not _SUFFIX.match(marker):
        raise ValueError(f"id marker must be one lowercase letter or empty, not {marker!r}")
    return f"{scope}-{marker}{seq:04d}"


_REF_KIND = re.compile(r"^[a-z]+/")
_SEQ_SUFFIX = re.compile(r"-(?:[elr])?\d{4,}$")


def scope_of(item: str) -> str:
    """The scope an id or ref carries (seed 000 §2): `sales-e0007`, `entity/sales-e0007@3`,
    `link/sales-l0042`, `sales-r0001`, rule `sales-0001` → `sales`. Text that carries no
    scope comes back whole, and is then refused like any unknown scope."""
    bare = _REF_KIND.sub("", item, count=1).partition("@")[0]
    return _SEQ_SUFFIX.sub("", bare)
