"""`propose_rule`, the auto-adopt policy, and `rule_retract` for what the policy adopted.

A rule's statement never changes: a correction is a new rule that supersedes the old one.
Decisions by a person live in `groundnote.decision`; the only adopt written here is the
policy's, in scopes whose approval mode is `auto`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated

from pydantic import Field

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
)
from groundnote.core.fts import index_rule
from groundnote.core.rules import (
    EVIDENCE_REF_RE,
    RuleAnswer,
    RuleOut,
    parse_evidence_ref,
    rule_ref,
    rules_by_id,
)
from groundnote.core.sources import attachment_ref, source_ref
from groundnote.core.status import approval_mode
from groundnote.domain.errors import (
    AlreadyDecided,
    NotFound,
    ReferenceUnknown,
    RightMissing,
    ScopeMismatch,
    StateChanged,
    ValidationFailed,
)
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import Day, RuleId, ScopeName, format_seq_id

__all__ = [
    "AUTO_ADOPT",
    "PROPOSE_RULE",
    "RULE_RETRACT",
    "EvidenceIn",
    "ProposeRuleInput",
    "RetractInput",
    "insert_rule",
]

AUTO_ADOPT = "policy:auto-adopt"
EvidenceRef = Annotated[str, Field(pattern=EVIDENCE_REF_RE, max_length=1100)]


class EvidenceIn(StrictModel):
    quote: str = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="The words of the source the rule rests on.",
    )
    refs: list[EvidenceRef] = Field(
        min_length=1,
        max_length=20,
        description="Stored sources or attachments: source/<id>, attachment/<id>#<n> (or the bare ids).",
    )


class ProposeRuleInput(StrictModel):
    scope: ScopeName
    statement: str = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="The rule in one or a few plain sentences.",
    )
    evidence: EvidenceIn
    valid_from: Day | None = Field(None, description="First day it holds; default today.")
    valid_to: Day | None = Field(None, description="Last day it holds; omitted: open-ended.")
    supersedes: RuleId | None = Field(None, description="The adopted rule this one replaces.")


def _canonical_refs(refs: list[str]) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for ref in refs:
        source_id, n = parse_evidence_ref(ref)
        canonical = attachment_ref(source_id, n) if n is not None else source_ref(source_id)
        if canonical not in (c for c, _, _ in out):
            out.append((canonical, source_id, n))
    return out


def _missing_refs(conn: sqlite3.Connection, refs: list[tuple[str, str, int | None]]) -> list[str]:
    missing = []
    for canonical, source_id, n in refs:
        if n is None:
            hit = conn.execute("SELECT 1 FROM source WHERE id = ?", (source_id,)).fetchone()
        else:
            hit = conn.execute(
                "SELECT 1 FROM source_attachment WHERE source_id = ? AND n = ?", (source_id, n)
            ).fetchone()
        if hit is None:
            missing.append(canonical)
    return missing


def insert_rule(conn: sqlite3.Connection, row: dict[str, object]) -> None:
    """Write a rule (its id and seq given), its evidence rows and its full-text entry."""
    names = ", ".join(row)
    conn.execute(
        f"INSERT INTO rule ({names}) VALUES ({', '.join('?' for _ in row)})", list(row.values())
    )
    refs = json.loads(str(row["evidence_refs"]))
    for _, source_id, n in _canonical_refs(refs):
        conn.execute(
            "INSERT INTO rule_evidence (rule_id, source_id, n) VALUES (?, ?, ?)",
            (row["id"], source_id, n),
        )
    quote = row.get("evidence_quote")
    index_rule(conn, int(str(row["seq"])), str(row["statement"]), str(quote) if quote else None)


def _check_supersedes(conn: sqlite3.Connection, scope: str, target: str) -> None:
    if not target.startswith(scope + "-"):
        raise ScopeMismatch(f"The rule {target} is not a rule of the scope {scope}.")
    row = conn.execute("SELECT status FROM rule_state WHERE id = ?", (target,)).fetchone()
    if row is None:
        raise ReferenceUnknown(
            f"The rule {target} does not exist in {scope}.",
            next=[{"tool": "search", "why": "find the rule to replace"}],
        )
    if row["status"] != "adopted":
        raise ValidationFailed(
            f"The rule {target} is {row['status']}; only an adopted rule in force can be superseded.",
            remedy="Omit supersedes, or name the rule that is in force now (read_rule shows its successors).",
            next=[{"tool": "read_rule", "why": f"see the state of {target}"}],
        )


def _with_next(out: RuleOut, steps: list[Next]) -> RuleAnswer:
    return RuleAnswer.model_validate({**out.model_dump(), "next": steps})


def propose_rule(ctx: Context, value: ProposeRuleInput) -> RuleAnswer:
    today = ctx.today()
    valid_from = value.valid_from or today
    if value.valid_to is not None and value.valid_to < valid_from:
        raise ValidationFailed(
            f"valid_to {value.valid_to} lies before valid_from {valid_from}.",
            remedy="Give a valid_to on or after valid_from, or omit it for an open-ended rule.",
        )
    refs = _canonical_refs(value.evidence.refs)
    auto = approval_mode(ctx, value.scope) == "auto"
    with ctx.write(value.scope) as conn:
        missing = _missing_refs(conn, refs)
        if missing:
            raise ReferenceUnknown(
                f"Evidence not stored in {value.scope}: {', '.join(missing)}.",
                remedy="Store the mail or meeting first with store_source, then cite the refs it returns.",
                next=[{"tool": "store_source", "why": "store the evidence first"}],
                missing=missing,
            )
        if value.supersedes:
            _check_supersedes(conn, value.scope, value.supersedes)
        seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM rule").fetchone()[0]
        rule_id = format_seq_id(value.scope, "", seq)
        now = ctx.clock.instant()
        insert_rule(
            conn,
            {
                "seq": seq,
                "id": rule_id,
                "statement": value.statement,
                "evidence_quote": value.evidence.quote,
                "evidence_refs": json.dumps([c for c, _, _ in refs], ensure_ascii=False),
                "valid_from": valid_from,
                "valid_to": value.valid_to,
                "supersedes": value.supersedes,
                "proposed_at": now,
                "proposed_by": ctx.actor,
                "channel": ctx.channel,
            },
        )
        if auto:
            conn.execute(
                "INSERT INTO rule_decision (rule_id, verdict, reason, decided_by, decided_at, channel) "
                "VALUES (?, 'adopt', 'approval mode auto', ?, ?, 'policy')",
                (rule_id, AUTO_ADOPT, now),
            )
        ctx.log.refs = [rule_ref(rule_id)]
        out = rules_by_id(conn, [rule_id], today=today, approval_base=ctx.public_url())[rule_id]
    link = Next(
        tool="link_propose",
        why=(
            f"link rule/{rule_id} to the entity it is about (type concerns, to entity/<id>); "
            "until then search finds it by that entity only through its sources"
        ),
    )
    if auto:
        out_next = [
            link,
            Next(
                tool="search", why="it is adopted now (auto-adopted): it answers searches at once"
            ),
            Next(tool="rule_retract", why="only if the person asks to take it back"),
        ]
    else:
        out_next = [
            link,
            Next(tool="read_rule", why="check its state later; a person adopts it at approval_url"),
        ]
    return _with_next(out, out_next)


class RetractInput(StrictModel):
    scope: ScopeName
    id: RuleId
    reason: str = Field(
        min_length=1,
        pattern=r"\S",
        max_length=1000,
        description="Why, in the person's words: who asked and when.",
    )


def rule_retract(ctx: Context, value: RetractInput) -> RuleAnswer:
    with ctx.write(value.scope) as conn:
        row = conn.execute(
            "SELECT status, auto_adopted FROM rule_state WHERE id = ?", (value.id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"No rule {value.id} in {value.scope}.")
        if row["status"] == "retracted":
            raise AlreadyDecided(f"The rule {value.id} is retracted already.", current="retracted")
        if not row["auto_adopted"]:
            raise RightMissing(
                f"The rule {value.id} was not adopted by the policy; an agent may retract only "
                "auto-adopted rules.",
                remedy="Tell the person: a person retracts it on the approval page.",
            )
        if row["status"] not in ("adopted", "superseded"):
            raise StateChanged(
                f"The rule {value.id} is {row['status']}; there is nothing to retract."
            )
        conn.execute(
            "INSERT INTO rule_decision (rule_id, verdict, reason, decided_by, decided_at, channel) "
            "VALUES (?, 'retract', ?, ?, ?, ?)",
            (value.id, value.reason, ctx.actor, ctx.clock.instant(), ctx.channel),
        )
        ctx.log.refs = [rule_ref(value.id)]
        out = rules_by_id(
            conn, [value.id], today=ctx.today(), approval_base=ctx.public_url(), with_decisions=True
        )[value.id]
    return _with_next(
        out, [Next(tool="search", why="it no longer appears in searches; tell the person")]
    )


PROPOSE_RULE: Capability[ProposeRuleInput, RuleAnswer] = Capability(
    name="core.propose_rule",
    kind="command",
    right=Right.PROPOSE,
    input=ProposeRuleInput,
    output=RuleAnswer,
    description=(
        "Propose a business rule with its evidence: a quote and refs to stored sources or "
        "attachments (store them first with store_source). Use it when a mail or meeting states "
        "a rule that others should follow; to change a rule, propose the new wording with "
        "supersedes naming the old one, never edit. Returns the rule with its id and status. In "
        "a scope with approval mode person the rule stays proposed until a person adopts it: "
        "tell the person and give the approval_url. In approval mode auto it is adopted at once "
        'and marked auto_adopted: say "auto-adopted" whenever you cite it.'
    ),
    handler=propose_rule,
    mcp=McpExposure("propose_rule"),
    http=HttpExposure("POST", "/v1/rules"),
    cli=CliExposure(("rules", "propose")),
    annotations=Annotations(read_only=False),
    log_operation="propose",
)

RULE_RETRACT: Capability[RetractInput, RuleAnswer] = Capability(
    name="core.rule_retract",
    kind="command",
    right=Right.PROPOSE,
    input=RetractInput,
    output=RuleAnswer,
    description=(
        "Retract an auto-adopted rule when the person asks you to, with their reason. Only "
        "rules the policy adopted (auto_adopted: true) can be retracted here; a rule a person "
        "adopted is retracted by a person on the approval page, so tell the person that instead. "
        "Returns the rule, now retracted, with its decision history; it no longer answers searches."
    ),
    handler=rule_retract,
    mcp=McpExposure("rule_retract"),
    http=HttpExposure("POST", "/v1/rules/{id}/retract"),
    cli=CliExposure(("rules", "retract")),
    annotations=Annotations(read_only=False, destructive=True),
    log_operation="decide",
)
