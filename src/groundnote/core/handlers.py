"""One handler per core operation, named as its capability without `core.` (`import_` for
`core.import`). The registry admitted the call on `ctx.scopes` before it runs; a handler opens
its transaction, calls the domain modules (rules, sources, search, propose, transfer) and builds
the answer with its `next` steps."""

from __future__ import annotations

import json
import time
from typing import Any

from groundnote import __version__
from groundnote.capabilities import (
    Context,
)
from groundnote.core.bundles import (
    Bundle,
    compact,
)
from groundnote.core.fts import (
    match_all,
    normalize,
    query_terms,
)
from groundnote.core.models import (
    ExportInput,
    ExportOutput,
    FeedbackInput,
    FeedbackOutput,
    ImportInput,
    ImportOutput,
    ListRulesInput,
    ListScopesInput,
    ListScopesOutput,
    ProposeRuleInput,
    ProvenanceAttachment,
    ProvenanceOutput,
    ProvenanceSource,
    ReadRuleInput,
    RetractInput,
    RuleList,
    ScopeEntry,
    ScopePageInput,
    ScopeStatus,
    SearchInput,
    SearchOutput,
    StatusInput,
    StatusOutput,
    StoreSourceInput,
    SubsystemVersion,
)
from groundnote.core.propose import (
    auto_adopt,
    canonical_refs,
    check_supersedes,
    insert_rule,
    missing_refs,
    retract_auto_adopted,
)
from groundnote.core.rules import (
    RuleAnswer,
    RuleOut,
    decisions_of,
    rule_ref,
    rules_by_id,
)
from groundnote.core.search import Hit, log_each_scope, refs_of, search_scope
from groundnote.core.sources import (
    SourceOut,
    attachment_ref,
    attachment_rows,
    content_sha256,
    insert_source,
    read_source,
    source_ref,
    source_row,
)
from groundnote.core.status import approval_mode
from groundnote.core.transfer import CALLER_LEAVES_OUT, EMPTY_SCOPE, MAX_IMPORT_CHARS
from groundnote.domain.errors import (
    NotFound,
    PayloadTooLarge,
    ReferenceUnknown,
    ValidationFailed,
)
from groundnote.domain.guidance import Next
from groundnote.domain.ids import format_seq_id
from groundnote.store.database import Database
from groundnote.store.dialect import dialect_of
from groundnote.store.inspect import file_bytes, ledger_versions, table_counts
from groundnote.store.sql import Connection
from groundnote.store.transfer import Transfer, export_lines, import_lines, refuse_unless_empty

__all__ = [
    "export",
    "feedback",
    "import_",
    "list_proposals",
    "list_rejected",
    "list_rules",
    "list_scopes",
    "propose_rule",
    "provenance",
    "read_rule",
    "rule_retract",
    "search",
    "status",
    "store_source",
]


def list_scopes(ctx: Context, _: ListScopesInput) -> ListScopesOutput:
    assert ctx.principal is not None  # the scopes are the grant's: credentials were required
    entries = []
    for name in ctx.scopes:
        right = ctx.principal.right_on(name)
        assert right is not None
        entries.append(
            ScopeEntry(name=name, right=right.label, approval_mode=approval_mode(ctx, name))
        )
    steps = [Next(tool="status", why="see what a scope holds")] if entries else []
    return ListScopesOutput(scopes=entries, next=steps)


def _pending(ctx: Context, db: Database) -> dict[str, int]:
    counts: dict[str, int] = {}
    with db.read() as conn:
        for subsystem in ctx.home.scope_subsystems:
            if subsystem.pending is not None:
                counts.update(subsystem.pending(conn))
    return counts


def status(ctx: Context, value: StatusInput) -> StatusOutput:
    ctx.log.cross_scope = len(ctx.scopes) > 1
    out = []
    for name in ctx.scopes:
        db = ctx.scope_db(name)
        out.append(
            ScopeStatus(
                scope=name,
                approval_mode=approval_mode(ctx, name),
                pending=_pending(ctx, db),
                schema_versions=[
                    SubsystemVersion(subsystem=s, version=v, migrations=n)
                    for s, (v, n) in sorted(ledger_versions(db).items())
                ],
                rows=table_counts(db),
                file_bytes=file_bytes(db),
            )
        )
    return StatusOutput(version=__version__, scopes=out)


def search(ctx: Context, value: SearchInput) -> SearchOutput:
    started = time.perf_counter()
    terms = query_terms(value.query)
    if not terms:
        raise ValidationFailed(
            "The query has no words to search for.", remedy="Give the words of the rule or topic."
        )
    day = value.as_of or ctx.today()
    scopes = [value.scope] if value.scope else list(dict.fromkeys(value.scopes or []))
    stages: dict[str, Any] = {}
    found: list[tuple[Hit, Bundle]] = []
    for scope in scopes:
        found += search_scope(ctx, scope, terms, value, day, stages)
    found.sort(key=lambda pair: pair[1].head.scope)
    found.sort(key=lambda pair: pair[0].key)
    bundles = [b for _, b in found[: value.limit]]
    stages["heads"] = len(bundles)
    stages["ms"] = round((time.perf_counter() - started) * 1000, 2)
    ctx.log.terms = terms
    ctx.log.stages = stages
    if len(scopes) > 1:
        log_each_scope(ctx, scopes, bundles)
    else:
        ctx.log.refs = refs_of(bundles)
    use_compact = value.compact if value.compact is not None else ctx.channel == "mcp"
    steps = (
        [Next(tool="read_rule", why="read a head in full with its decisions")]
        if bundles
        else [
            Next(tool="search", why="try other words, or include_proposed: true"),
        ]
    )
    if bundles:
        steps.append(Next(tool="feedback", why="say whether a result was useful, with search_id"))
    if use_compact:
        small, related = compact(bundles)
        return SearchOutput(
            search_id=ctx.log.id,
            as_of=day,
            terms=terms,
            form="compact",
            bundles=small,
            related=related,
            next=steps,
        )
    return SearchOutput(
        search_id=ctx.log.id, as_of=day, terms=terms, form="full", bundles=bundles, next=steps
    )


def _one_rule(ctx: Context, conn: Connection, scope: str, rule_id: str) -> RuleOut:
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


def _list(
    ctx: Context,
    scope: str,
    where: list[str],
    params: dict[str, Any],
    limit: int,
    offset: int,
    order: str = "r.seq DESC",
) -> RuleList:
    clause = " AND ".join(where) or "TRUE"
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
        dialect = dialect_of(ctx.scope_db(value.scope))
        where.append(f"r.seq IN ({dialect.text_matches('rule_fts', ':match')})")
        params["match"] = dialect.text_query(match_all(terms))
    return _list(ctx, value.scope, where, params, value.limit, value.offset)


def list_proposals(ctx: Context, value: ScopePageInput) -> RuleList:
    out = _list(ctx, value.scope, ["st.status = 'proposed'"], {}, value.limit, value.offset)
    if out.rules and not out.next:
        out.next = [
            Next(tool="read_rule", why="a person adopts or rejects each at its approval_url")
        ]
    return out


def list_rejected(ctx: Context, value: ScopePageInput) -> RuleList:
    return _list(ctx, value.scope, ["st.status = 'rejected'"], {}, value.limit, value.offset)


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
    refs = canonical_refs(value.evidence.refs)
    auto = approval_mode(ctx, value.scope) == "auto"
    with ctx.write(value.scope) as conn:
        missing = missing_refs(conn, refs)
        if missing:
            raise ReferenceUnknown(
                f"Evidence not stored in {value.scope}: {', '.join(missing)}.",
                remedy="Store the mail or meeting first with store_source, then cite the refs it returns.",
                next=[{"tool": "store_source", "why": "store the evidence first"}],
                missing=missing,
            )
        if value.supersedes:
            check_supersedes(conn, value.scope, value.supersedes)
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
            auto_adopt(conn, rule_id, now)
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


def rule_retract(ctx: Context, value: RetractInput) -> RuleAnswer:
    with ctx.write(value.scope) as conn:
        retract_auto_adopted(
            conn,
            value.scope,
            value.id,
            reason=value.reason,
            by=ctx.actor,
            at=ctx.clock.instant(),
            channel=ctx.channel,
        )
        ctx.log.refs = [rule_ref(value.id)]
        out = rules_by_id(
            conn, [value.id], today=ctx.today(), approval_base=ctx.public_url(), with_decisions=True
        )[value.id]
    return _with_next(
        out, [Next(tool="search", why="it no longer appears in searches; tell the person")]
    )


def store_source(ctx: Context, value: StoreSourceInput) -> SourceOut:
    row = source_row(value.source, ctx.config.zone, ctx.today())
    attachments = attachment_rows(value.source.attachments)
    digest = content_sha256(row, attachments)
    with ctx.write(value.scope) as conn:
        existing = conn.execute(
            "SELECT content_sha256 FROM source WHERE id = ?", (row["id"],)
        ).fetchone()
        if existing is not None and existing[0] != digest:
            raise ValidationFailed(
                f"The source {row['id']} is stored already with different content.",
                remedy=(
                    f"A stored source never changes. Cite the existing {source_ref(row['id'])} as it "
                    "is; a corrected document is a new source with its own id."
                ),
                existing=source_ref(row["id"]),
            )
        if existing is None:
            row.update(content_sha256=digest, stored_at=ctx.clock.instant(), stored_by=ctx.actor)
            insert_source(conn, row, attachments)
        ctx.log.refs = [source_ref(row["id"])]
        out = read_source(conn, row["id"], stored=existing is None)
    assert out is not None
    out.next = [
        Next(tool="propose_rule", why=f"cite {out.ref} as evidence for a rule it states"),
        Next(tool="search", why="see which rules already rest on this topic"),
    ]
    return out


def feedback(ctx: Context, value: FeedbackInput) -> FeedbackOutput:
    with ctx.write(value.scope) as conn:
        logged = conn.execute(
            "SELECT refs FROM search_log WHERE id = ? AND operation = 'search'", (value.search_id,)
        ).fetchone()
        if logged is None:
            raise ReferenceUnknown(
                f"No search {value.search_id} is logged in {value.scope}.",
                remedy="Use the search_id of a search answer in this scope.",
            )
        if value.ref not in json.loads(logged["refs"]):
            raise ValidationFailed(
                f"The search {value.search_id} did not return {value.ref}.",
                remedy="Give feedback only on a ref that search returned (a head or a group entry).",
            )
        new_id = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM feedback").fetchone()[0])
        conn.execute(
            "INSERT INTO feedback (id, search_id, ref, verdict, given_by, given_at) "
            "VALUES (?,?,?,?,?,?)",
            (new_id, value.search_id, value.ref, value.verdict, ctx.actor, ctx.clock.instant()),
        )
        ctx.log.refs = [value.ref]
    steps = []
    if value.verdict == "wrong" and value.ref.startswith("rule/"):
        steps.append(Next(tool="propose_rule", why="propose the correct rule with supersedes"))
    return FeedbackOutput(
        id=new_id, search_id=value.search_id, ref=value.ref, verdict=value.verdict, next=steps
    )


def export(ctx: Context, value: ExportInput) -> ExportOutput:
    transfer = ctx.services.get(Transfer)
    with ctx.scope_db(value.scope).read() as conn:
        conn.execute("BEGIN")  # one snapshot for every table
        try:
            lines = list(export_lines(conn, transfer, value.scope))
        finally:
            conn.execute("COMMIT")
    return ExportOutput(scope=value.scope, lines=len(lines), jsonl="\n".join(lines) + "\n")


def import_(ctx: Context, value: ImportInput) -> ImportOutput:
    if len(value.jsonl) > MAX_IMPORT_CHARS:
        raise PayloadTooLarge(
            f"The import has {len(value.jsonl)} characters; at most {MAX_IMPORT_CHARS} go in one call.",
            remedy="Use `groundnote import scope FILE --scope S` on the command line for larger files.",
        )
    transfer = ctx.services.get(Transfer)
    with ctx.write(value.scope) as conn:
        refuse_unless_empty(conn, transfer, value.scope, f"The scope {value.scope}", EMPTY_SCOPE)
        # Call keys replay answers to their actors' retries: one caller's file must not
        # answer another grant's calls, so only the operator's `groundnote import` keeps them.
        counts = import_lines(
            conn, transfer, value.scope, value.jsonl.splitlines(), leave_out=CALLER_LEAVES_OUT
        )
    ctx.scope_db(value.scope).analyze()
    return ImportOutput(
        scope=value.scope,
        imported=counts,
        next=[Next(tool="search", why="the rules answer at once")],
    )
