"""Reading rules: `read_rule`, `list_rules`, `list_proposals`, `list_rejected`, `provenance`."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pydantic import BaseModel, Field

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
    Tenancy,
)
from groundnote.core.fts import match_all, normalize, query_terms
from groundnote.core.rules import (
    Decision,
    RuleAnswer,
    RuleOut,
    RuleStatus,
    decisions_of,
    rule_ref,
    rules_by_id,
)
from groundnote.core.sources import attachment_ref, source_ref
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import Day, RuleId, ScopeName

__all__ = [
    "LIST_PROPOSALS",
    "LIST_REJECTED",
    "LIST_RULES",
    "PROVENANCE",
    "READ_RULE",
]


class ReadRuleInput(StrictModel):
    scope: ScopeName
    id: RuleId


def _one_rule(ctx: Context, conn: sqlite3.Connection, scope: str, rule_id: str) -> RuleOut:
    found = rules_by_id(
        conn, [rule_id], today=ctx.today(), approval_base=ctx.public_url(), with_decisions=True
    )
    if rule_id not in found:
        raise NotFound(
            f"No rule {rule_id} in {scope}.",
            next=[{"tool": "search", "why": "find the rule by its words"}],
        )
    ctx.log.refs = [rule_ref(rule_id)]
    return found[rule_id]


def read_rule(ctx: Context, value: ReadRuleInput) -> RuleAnswer:
    with ctx.scope_db(value.scope).read() as conn:
        rule = _one_rule(ctx, conn, value.scope, value.id)
    steps = [
        Next(tool="provenance", why="see where it comes from: sources, attachments, decisions")
    ]
    if rule.superseded_by:
        steps.insert(0, Next(tool="read_rule", why=f"read its successor {rule.superseded_by[0]}"))
    return RuleAnswer.model_validate({**rule.model_dump(), "next": steps})


class ListRulesInput(StrictModel):
    scope: ScopeName
    status: RuleStatus | None = None
    valid_on: Day | None = Field(
        None, description="Only rules whose validity window holds this day."
    )
    text: str | None = Field(
        None, min_length=1, max_length=500, description="Words the rule contains."
    )
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0)


class RuleList(BaseModel):
    rules: list[RuleOut]
    total: int = Field(description="How many rules match, beyond this page too.")
    next: list[Next] = Field(default_factory=list, max_length=3)


def _list(
    ctx: Context,
    scope: str,
    where: list[str],
    params: dict[str, Any],
    limit: int,
    offset: int,
    order: str = "r.seq DESC",
) -> RuleList:
    clause = " AND ".join(where) or "1"
    with ctx.scope_db(scope).read() as conn:
        total = conn.execute(
            f"SELECT count(*) FROM rule r JOIN rule_state st ON st.id = r.id WHERE {clause}", params
        ).fetchone()[0]
        ids = [
            row[0]
            for row in conn.execute(
                f"SELECT r.id FROM rule r JOIN rule_state st ON st.id = r.id WHERE {clause} "
                f"ORDER BY {order} LIMIT :limit OFFSET :offset",
                {**params, "limit": limit, "offset": offset},
            )
        ]
        rules = list(
            rules_by_id(
                conn, ids, today=ctx.today(), approval_base=ctx.public_url(), with_decisions=True
            ).values()
        )
    ctx.log.refs = [r.ref for r in rules]
    steps = []
    if offset + len(rules) < total:
        steps.append(Next(tool="list_rules", why=f"the next page: offset {offset + len(rules)}"))
    return RuleList(rules=rules, total=total, next=steps)


def list_rules(ctx: Context, value: ListRulesInput) -> RuleList:
    where: list[str] = []
    params: dict[str, Any] = {}
    if value.status:
        where.append("st.status = :status")
        params["status"] = value.status
    if value.valid_on:
        where.append("r.valid_from <= :day AND (r.valid_to IS NULL OR r.valid_to >= :day)")
        params["day"] = value.valid_on
    if value.text:
        terms = query_terms(value.text)
        if not terms:
            raise ValidationFailed(
                "text has no words to look for.", remedy="Give words of the rule."
            )
        ctx.log.terms = terms
        where.append("r.seq IN (SELECT rowid FROM rule_fts WHERE rule_fts MATCH :match)")
        params["match"] = match_all(terms)
    return _list(ctx, value.scope, where, params, value.limit, value.offset)


class ScopePageInput(StrictModel):
    scope: ScopeName
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0)


def list_proposals(ctx: Context, value: ScopePageInput) -> RuleList:
    out = _list(ctx, value.scope, ["st.status = 'proposed'"], {}, value.limit, value.offset)
    if out.rules and not out.next:
        out.next = [
            Next(tool="read_rule", why="a person adopts or rejects each at its approval_url")
        ]
    return out


def list_rejected(ctx: Context, value: ScopePageInput) -> RuleList:
    return _list(ctx, value.scope, ["st.status = 'rejected'"], {}, value.limit, value.offset)


class ProvenanceAttachment(BaseModel):
    ref: str
    filename: str
    media_type: str
    size: int
    sha256: str
    cited: bool = Field(description="The rule's evidence names this attachment.")


class ProvenanceSource(BaseModel):
    ref: str
    kind: str
    title: str
    day: str
    who: list[str] = Field(
        description="Sender and recipients of a mail; participants of a meeting."
    )
    stored_at: str
    stored_by: str
    quote_found: bool = Field(
        description="The evidence quote occurs in its text or a cited attachment."
    )
    attachments: list[ProvenanceAttachment]


class ProvenanceOutput(BaseModel):
    rule: RuleOut
    proposed_at: str
    proposed_by: str
    sources: list[ProvenanceSource]
    decisions: list[Decision]
    next: list[Next] = Field(default_factory=list, max_length=3)


def _contains(haystack: str | None, quote: str) -> bool:
    return bool(haystack) and " ".join(quote.split()) in " ".join(normalize(haystack or "").split())


def provenance(ctx: Context, value: ReadRuleInput) -> ProvenanceOutput:
    with ctx.scope_db(value.scope).read() as conn:
        rule = _one_rule(ctx, conn, value.scope, value.id)
        quote = normalize(rule.evidence.quote or "")
        cited = {
            (r["source_id"], r["n"])
            for r in conn.execute(
                "SELECT source_id, n FROM rule_evidence WHERE rule_id = ?", (rule.id,)
            )
        }
        sources = []
        for row in conn.execute(
            "SELECT * FROM source WHERE id IN (SELECT source_id FROM rule_evidence WHERE rule_id = ?) "
            "ORDER BY day, seq",
            (rule.id,),
        ).fetchall():
            atts = conn.execute(
                "SELECT * FROM source_attachment WHERE source_id = ? ORDER BY n", (row["id"],)
            ).fetchall()
            found = (
                _contains(row["body"], quote)
                or _contains(row["title"], quote)
                or any((row["id"], a["n"]) in cited and _contains(a["text"], quote) for a in atts)
            )
            who = (
                [row["sender"] or "", *json.loads(row["recipients"]), *json.loads(row["cc"])]
                if row["kind"] == "mail"
                else json.loads(row["participants"])
            )
            sources.append(
                ProvenanceSource(
                    ref=source_ref(row["id"]),
                    kind=row["kind"],
                    title=row["title"],
                    day=row["day"],
                    who=[w for w in who if w],
                    stored_at=row["stored_at"],
                    stored_by=row["stored_by"],
                    quote_found=bool(quote) and found,
                    attachments=[
                        ProvenanceAttachment(
                            ref=attachment_ref(row["id"], a["n"]),
                            filename=a["filename"],
                            media_type=a["media_type"],
                            size=a["size"],
                            sha256=a["sha256"],
                            cited=(row["id"], a["n"]) in cited,
                        )
                        for a in atts
                    ],
                )
            )
        decisions = decisions_of(conn, rule.id)
    ctx.log.refs = [rule.ref, *(s.ref for s in sources)]
    return ProvenanceOutput(
        rule=rule,
        proposed_at=rule.proposed_at,
        proposed_by=rule.proposed_by,
        sources=sources,
        decisions=decisions,
        next=[Next(tool="search", why="find related rules with their bundles")],
    )


READ_RULE: Capability[ReadRuleInput, RuleAnswer] = Capability(
    name="core.read_rule",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ReadRuleInput,
    output=RuleAnswer,
    description=(
        "Read one rule by id: its statement, evidence, validity, status and every decision on "
        "it (who adopted, rejected or retracted it, when and why). Use it when a search result "
        'or the person names a rule and you need all of it. Pass on its "still valid?" hint and '
        "its date; if it is superseded, read and cite the successor instead."
    ),
    handler=read_rule,
    mcp=McpExposure("read_rule"),
    http=HttpExposure("GET", "/v1/rules/{id}"),
    cli=CliExposure(("rules", "show")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="read_rule",
)

PROVENANCE: Capability[ReadRuleInput, ProvenanceOutput] = Capability(
    name="core.provenance",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ReadRuleInput,
    output=ProvenanceOutput,
    description=(
        "Trace where a rule comes from: who proposed it when, the sources its evidence cites "
        "(with sender, recipients or participants and their day), their attachments, whether "
        "the quote occurs in them, and every decision with date and who. Use it when the person "
        'asks "says who?" or before relying on a rule for something that matters; tell the '
        "person the sources and who decided."
    ),
    handler=provenance,
    mcp=McpExposure("provenance"),
    http=HttpExposure("GET", "/v1/rules/{id}/provenance"),
    cli=CliExposure(("rules", "provenance")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="provenance",
)

LIST_RULES: Capability[ListRulesInput, RuleList] = Capability(
    name="core.list_rules",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ListRulesInput,
    output=RuleList,
    description=(
        "List the rules of a scope, newest first, filtered by status, by a day their validity "
        "window holds, or by words; 50 per page with the total."
    ),
    handler=list_rules,
    http=HttpExposure("GET", "/v1/rules"),
    cli=CliExposure(("rules", "list")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_rules",
)

LIST_PROPOSALS: Capability[ScopePageInput, RuleList] = Capability(
    name="core.list_proposals",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ScopePageInput,
    output=RuleList,
    description=(
        "List the proposed rules of a scope that wait for a person, newest first, each with "
        "its approval_url."
    ),
    handler=list_proposals,
    http=HttpExposure("GET", "/v1/proposals"),
    cli=CliExposure(("rules", "proposals")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_proposals",
)

LIST_REJECTED: Capability[ScopePageInput, RuleList] = Capability(
    name="core.list_rejected",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ScopePageInput,
    output=RuleList,
    description=(
        "List the rejected rules of a scope, newest first, with the person's reason, so that "
        "the same rule is not proposed again."
    ),
    handler=list_rejected,
    http=HttpExposure("GET", "/v1/rejected"),
    cli=CliExposure(("rules", "rejected")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_rejected",
)
