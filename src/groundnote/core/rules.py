"""Rules as they are read: status (derived by the `rule_state` view), validity on a day, the
"still valid?" hint and the decision history. Writers live in `propose.py` and `decision/`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from groundnote.capabilities import Context
from groundnote.domain.guidance import Next
from groundnote.domain.ids import ATTACHMENT_REF_RE, SOURCE_ID_RE
from groundnote.store.sql import Connection, in_list

__all__ = [
    "EVIDENCE_REF_RE",
    "Decision",
    "Evidence",
    "RuleAnswer",
    "RuleOut",
    "RuleStatus",
    "decisions_of",
    "in_force_sql",
    "parse_evidence_ref",
    "rule_answer",
    "rule_ref",
    "rules_by_id",
    "still_valid",
]

RuleStatus = Literal["proposed", "adopted", "rejected", "superseded", "retracted"]

_SOURCE = SOURCE_ID_RE.strip("^$")
_ATTACHMENT = ATTACHMENT_REF_RE.strip("^$")
EVIDENCE_REF_RE = rf"^(source/{_SOURCE}|attachment/{_ATTACHMENT}|{_SOURCE}|{_ATTACHMENT})$"
_ATTACHMENT_FULL = re.compile(rf"^(?P<id>{_SOURCE})#(?P<n>[1-9]\d*)\Z")
# A rule older than this is worth a question before anyone relies on it.
STALE_DAYS = 365


def rule_ref(rule_id: str) -> str:
    return f"rule/{rule_id}"


def parse_evidence_ref(ref: str) -> tuple[str, int | None]:
    """(source id, attachment number or None) of `source/…`, `attachment/…#n` or a bare id."""
    bare = ref.split("/", 1)[1] if ref.startswith(("source/", "attachment/")) else ref
    found = _ATTACHMENT_FULL.match(bare)
    if found:
        return found.group("id"), int(found.group("n"))
    return bare, None


class Evidence(BaseModel):
    quote: str | None = Field(description="The words of the source the rule rests on.")
    refs: list[str] = Field(description="source/<id> and attachment/<id>#<n> refs.")


class Decision(BaseModel):
    verdict: Literal["adopt", "reject", "retract"]
    reason: str | None
    decided_by: str = Field(description="person:<name>, policy:auto-adopt, or the agent's grant.")
    decided_at: str
    channel: str


class RuleOut(BaseModel):
    ref: str
    id: str
    statement: str
    evidence: Evidence
    valid_from: str
    valid_to: str | None
    supersedes: str | None
    superseded_by: list[str] = Field(description="Ids of rules proposed or adopted to replace it.")
    status: RuleStatus
    auto_adopted: bool = Field(description="Adopted by the policy without a person: say so.")
    proposed_at: str
    proposed_by: str
    still_valid: str = Field(description='The "still valid?" hint: pass it on to the person.')
    approval_url: str | None = Field(description="Where a person decides it, while it is proposed.")
    decisions: list[Decision] = Field(default_factory=list)


class RuleAnswer(RuleOut):
    """One rule as an answer of its own, with what to do next."""

    next: list[Next] = Field(default_factory=list, max_length=3)


def in_force_sql(alias: str = "r") -> str:
    """SQL condition: rule `alias` is adopted, inside its window on :day, not yet replaced then.

    A superseded rule stays in force for days before its successor's valid_from, so `as_of`
    in the past answers what held then.
    """
    latest = "(SELECT d.verdict FROM rule_decision d WHERE d.rule_id = {0}.id ORDER BY d.seq DESC LIMIT 1)"
    return (
        f"{latest.format(alias)} = 'adopt' AND {alias}.valid_from <= :day "
        f"AND ({alias}.valid_to IS NULL OR {alias}.valid_to >= :day) "
        f"AND NOT EXISTS (SELECT 1 FROM rule s WHERE s.supersedes = {alias}.id "
        f"AND s.valid_from <= :day AND {latest.format('s')} = 'adopt')"
    )


def still_valid(
    status: str,
    auto_adopted: bool,
    valid_from: str,
    valid_to: str | None,
    today: str,
    successors: list[str],
) -> str:
    if status == "proposed":
        return "Proposed, not adopted: do not rely on it until a person adopts it."
    if status == "rejected":
        return "Rejected by a person: it does not hold."
    if status == "retracted":
        return "Retracted: it no longer holds."
    if status == "superseded":
        return f"Superseded by {', '.join(successors)}: use the successor for anything current."
    parts = []
    if valid_from > today:
        parts.append(f"Adopted, in force only from {valid_from}.")
    elif valid_to is not None and valid_to < today:
        parts.append(f"Its validity ended on {valid_to}.")
    elif valid_to is not None:
        parts.append(f"Valid from {valid_from} until {valid_to}.")
    else:
        parts.append(f"Valid since {valid_from}, no end date.")
    age = (date.fromisoformat(today) - date.fromisoformat(valid_from)).days
    if age > STALE_DAYS:
        parts.append(f"It is {age // 365} year(s) old: ask the person whether it still holds.")
    if auto_adopted:
        parts.append("Auto-adopted by policy, no person has confirmed it.")
    return " ".join(parts)


def decisions_of(conn: Connection, rule_id: str) -> list[Decision]:
    return [
        Decision(
            verdict=r["verdict"],
            reason=r["reason"],
            decided_by=r["decided_by"],
            decided_at=r["decided_at"],
            channel=r["channel"],
        )
        for r in conn.execute(
            "SELECT * FROM rule_decision WHERE rule_id = ? ORDER BY seq", (rule_id,)
        )
    ]


def rules_by_id(
    conn: Connection,
    ids: Iterable[str],
    *,
    today: str,
    approval_base: str,
    with_decisions: bool = False,
) -> dict[str, RuleOut]:
    """The rules named, with status and hints; unknown ids are left out."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    marks, padded = in_list(wanted)
    rows = conn.execute(
        f"SELECT r.*, st.status, st.auto_adopted FROM rule r JOIN rule_state st ON st.id = r.id "
        f"WHERE r.id IN ({marks})",
        padded,
    ).fetchall()
    successors: dict[str, list[str]] = {}
    for row in conn.execute(
        f"SELECT s.supersedes, s.id FROM rule s JOIN rule_state st ON st.id = s.id "
        f"WHERE s.supersedes IN ({marks}) AND st.status IN ('proposed','adopted','superseded') "
        "ORDER BY s.seq",
        padded,
    ):
        successors.setdefault(row[0], []).append(row[1])
    out: dict[str, RuleOut] = {}
    for row in rows:
        later = successors.get(row["id"], [])
        out[row["id"]] = RuleOut(
            ref=rule_ref(row["id"]),
            id=row["id"],
            statement=row["statement"],
            evidence=Evidence(quote=row["evidence_quote"], refs=json.loads(row["evidence_refs"])),
            valid_from=row["valid_from"],
            valid_to=row["valid_to"],
            supersedes=row["supersedes"],
            superseded_by=later,
            status=row["status"],
            auto_adopted=bool(row["auto_adopted"]),
            proposed_at=row["proposed_at"],
            proposed_by=row["proposed_by"],
            still_valid=still_valid(
                row["status"],
                bool(row["auto_adopted"]),
                row["valid_from"],
                row["valid_to"],
                today,
                later,
            ),
            approval_url=f"{approval_base}/approval/rules/{row['id']}"
            if row["status"] == "proposed"
            else None,
            decisions=decisions_of(conn, row["id"]) if with_decisions else [],
        )
    return {i: out[i] for i in wanted if i in out}


def rule_answer(ctx: Context, conn: Connection, rule_id: str, steps: list[Next]) -> RuleAnswer:
    """One rule with its decisions, as the answer of a command that changed it."""
    rule = rules_by_id(
        conn, [rule_id], today=ctx.today(), approval_base=ctx.public_url(), with_decisions=True
    )[rule_id]
    return RuleAnswer.model_validate({**rule.model_dump(), "next": steps})
