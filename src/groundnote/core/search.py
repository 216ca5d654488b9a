"""`search`: full text over rule statements and source text; heads are rules in force on
`as_of`, ranked by bm25 then recency, each built into a bundle. Every search is logged with
its terms, the refs it returned and its stages, so that `feedback` can refer to it.

What search is built from is a `SearchComposition` the composition root (`runtime.py`)
builds and hands to the handler through the context: the bundle group providers (core's and
the graph's), the head enrichers, and the answer to the `entity` filter (seed 000 G8). Core
does not import the graph: the filter is an SQL subquery of allowed rule ids that search joins
into its own statements (DESIGN principle 3: a cross-subsystem question is an SQL join, and
each subsystem's tables are reached through its own module). Being SQL, the filter narrows the
ranked pool itself instead of the page after it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, model_validator

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.config import Config
from groundnote.core.bundles import (
    CORE_GROUPS,
    Bundle,
    BundleBuilder,
    BundleContext,
    CompactBundle,
    GroupProvider,
    HeadEnricher,
    Related,
    compact,
    head_condition,
)
from groundnote.core.fts import expand_prefixes, match_all, match_any, query_terms
from groundnote.core.rules import rules_by_id
from groundnote.domain.errors import ValidationFailed
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import Day, EntityId, ScopeName
from groundnote.store.oplog import OpLogEntry, write_entry

__all__ = [
    "SEARCH",
    "EntityFilter",
    "HeadRestriction",
    "SearchComposition",
    "SearchInput",
    "SearchOutput",
    "search",
]

POOL_FACTOR = 4
POOL_MIN = 40
RANK_WINDOW = 1000


class SearchInput(StrictModel):
    scope: ScopeName | None = Field(None, description="The scope to search; or give scopes.")
    scopes: list[ScopeName] | None = Field(None, min_length=1, max_length=10)
    query: str = Field(
        min_length=1, max_length=500, description="Words as a person would say them."
    )
    as_of: Day | None = Field(None, description="The day the rules must hold on; default today.")
    entity: EntityId | None = Field(
        None,
        description="Only rules linked to this entity or to an entity above it (one scope only).",
    )
    include_proposed: bool = Field(
        False, description="Also proposed rules, marked proposed: they are not adopted."
    )
    limit: int = Field(10, ge=1, le=50)
    compact: bool | None = Field(
        None, description="Compact form (each related thing once); default on MCP, full elsewhere."
    )

    @model_validator(mode="after")
    def _one_kind_of_scope(self) -> SearchInput:
        if (self.scope is None) == (self.scopes is None):
            raise ValueError("give either scope or scopes")
        if self.entity is not None and len(set(self.scopes or [])) > 1:
            raise ValueError("the entity filter works in one scope: give scope, not several scopes")
        return self


class SearchOutput(BaseModel):
    search_id: str = Field(description="Name it in feedback on a result.")
    as_of: str
    terms: list[str]
    form: str = Field(description="full or compact")
    bundles: list[Bundle] | list[CompactBundle]
    related: dict[str, Related] = Field(
        default_factory=dict, description="Compact form: ref → what it is, once per answer."
    )
    next: list[Next] = Field(default_factory=list, max_length=3)


@dataclass(frozen=True)
class HeadRestriction:
    """An SQL subquery selecting the rule ids a head must be among; parameter names are the
    filter's own (prefix them with its name) and must not collide with search's `day`, `s<n>`."""

    sql: str
    params: dict[str, Any] = field(default_factory=dict)


EntityFilter = Callable[[sqlite3.Connection, Config, str, str, str], HeadRestriction]
"""(conn, config, scope, entity id, day) → the heads allowed; raises for an unknown entity."""


@dataclass(frozen=True)
class SearchComposition:
    """What search is built from (runtime.py composes it): the bundle group providers, a later
    one replacing an earlier one of its kind; the head enrichers; what answers `entity`."""

    providers: tuple[GroupProvider, ...] = CORE_GROUPS
    enrichers: tuple[HeadEnricher, ...] = ()
    entity_filter: EntityFilter | None = None

    def builder(self) -> BundleBuilder:
        return BundleBuilder(self.providers, self.enrichers)

    def restriction(
        self, conn: sqlite3.Connection, config: Config, scope: str, entity: str | None, day: str
    ) -> HeadRestriction | None:
        if entity is None:
            return None
        if self.entity_filter is None:
            raise ValidationFailed(
                "This installation has no entity graph to filter by.",
                remedy="Search without entity.",
                problems=[{"key": "entity", "problem": "no entity filter is composed"}],
            )
        return self.entity_filter(conn, config, scope, entity, day)


@dataclass(frozen=True)
class _Hit:
    rule_id: str
    key: tuple[int, int, float, str]  # stage, direct before via source, bm25, -recency


def _heads_for(
    conn: sqlite3.Connection,
    seqs: dict[int, float],
    day: str,
    include_proposed: bool,
    only: HeadRestriction | None,
) -> list[tuple[str, int, float, str]]:
    if not seqs:
        return []
    params: dict[str, Any] = {"day": day}
    params.update({f"s{i}": seq for i, seq in enumerate(seqs)})
    marks = ",".join(f":s{i}" for i in range(len(seqs)))
    restrict = ""
    if only is not None:
        restrict = f" AND r.id IN ({only.sql})"
        params.update(only.params)
    rows = conn.execute(
        f"SELECT r.id, r.seq, r.valid_from FROM rule r WHERE r.seq IN ({marks}) "
        f"AND {head_condition('r', include_proposed)}{restrict}",
        params,
    ).fetchall()
    return [(r["id"], r["seq"], seqs[r["seq"]], r["valid_from"]) for r in rows]


# Later days sort first: invert each digit so that plain ascending order works.
_NEWER_FIRST = str.maketrans("0123456789", "9876543210")


def _recency(day: str) -> str:
    return day.translate(_NEWER_FIRST)


def _ranked(
    conn: sqlite3.Connection,
    table: str,
    expr: str,
    pool: int,
    only: HeadRestriction | None = None,
) -> tuple[dict[int, float], bool]:
    """The best `pool` matches by bm25 among the newest RANK_WINDOW matches, and whether capped.

    Ranking every match of a common word costs time in proportion to the scope; streaming the
    matches newest first and ranking a bounded window keeps a search's cost flat, and below the
    window (every selective query) the order is exactly bm25. The window is sorted inside
    SQLite, so only the pool crosses into Python. `only` (rule_fts, whose rowid is the rule's
    seq) keeps the window to the allowed rules.
    """
    params: dict[str, Any] = {"expr": expr, "window": RANK_WINDOW, "pool": pool}
    restrict = ""
    if only is not None:
        restrict = f" AND rowid IN (SELECT seq FROM rule WHERE id IN ({only.sql}))"
        params.update(only.params)
    rows = conn.execute(
        f"SELECT seq, score, count(*) OVER () FROM (SELECT rowid AS seq, bm25({table}) AS score "
        f"FROM {table} WHERE {table} MATCH :expr{restrict} ORDER BY rowid DESC LIMIT :window) "
        "ORDER BY score, seq DESC LIMIT :pool",
        params,
    ).fetchall()
    return {r[0]: r[1] for r in rows}, bool(rows) and rows[0][2] == RANK_WINDOW


@dataclass
class _Stage:
    """One pass of the search: an FTS expression over both indexes, and what it needs to find."""

    conn: sqlite3.Connection
    number: int
    expr: str
    pool: int
    day: str
    include_proposed: bool
    only: HeadRestriction | None

    def hits(self, wanted: int, known: set[str], stages: dict[str, Any]) -> list[_Hit]:
        """Heads of this stage not in `known`; sources are read only if direct hits fall short.

        Direct hits sort before hits through a source, so once `wanted` direct heads are in
        hand no source hit can reach the page, and the costlier source index is skipped
        (`source_hits` is then null in the log).
        """
        direct, capped = _ranked(self.conn, "rule_fts", self.expr, self.pool, self.only)
        hits = [
            _Hit(rid, (self.number, 0, rank, _recency(vf)))
            for rid, _, rank, vf in self._heads(direct)
            if rid not in known
        ]
        info: dict[str, Any] = {"rule_hits": len(direct), "source_hits": None, "capped": capped}
        stages[f"stage{self.number}"] = info
        if len(hits) >= wanted:
            return hits
        source_rank, sources_capped = _ranked(self.conn, "source_fts", self.expr, self.pool)
        info["source_hits"] = len(source_rank)
        info["capped"] = capped or sources_capped
        via: dict[int, float] = {}
        if source_rank:
            marks = ",".join("?" for _ in source_rank)
            for row in self.conn.execute(
                f"SELECT r.seq, s.seq FROM source s JOIN rule_evidence e ON e.source_id = s.id "
                f"JOIN rule r ON r.id = e.rule_id WHERE s.seq IN ({marks})",
                list(source_rank),
            ):
                rank = source_rank[row[1]]
                if row[0] not in direct and rank < via.get(row[0], 0.0):
                    via[row[0]] = rank
        hits += [
            _Hit(rid, (self.number, 1, rank, _recency(vf)))
            for rid, _, rank, vf in self._heads(via)
            if rid not in known
        ]
        return hits

    def _heads(self, seqs: dict[int, float]) -> list[tuple[str, int, float, str]]:
        return _heads_for(self.conn, seqs, self.day, self.include_proposed, self.only)


def _search_scope(
    ctx: Context, scope: str, terms: list[str], value: SearchInput, day: str, stages: dict[str, Any]
) -> list[tuple[_Hit, Bundle]]:
    pool = max(POOL_MIN, value.limit * POOL_FACTOR)
    composition = ctx.services.get(SearchComposition)
    with ctx.scope_db(scope).read() as conn:
        only = composition.restriction(conn, ctx.config, scope, value.entity, day)
        words = expand_prefixes(conn, terms)
        first = _Stage(conn, 1, match_all(terms, words), pool, day, value.include_proposed, only)
        hits = first.hits(value.limit, set(), stages)
        wider = match_any(terms, words)
        if len(hits) < value.limit and len(terms) > 1 and wider:
            second = _Stage(conn, 2, wider, pool, day, value.include_proposed, only)
            known = {h.rule_id for h in hits}
            hits += second.hits(value.limit - len(hits), known, stages)
        hits.sort(key=lambda h: h.key)
        hits = hits[: value.limit]
        today = ctx.today()
        base = ctx.public_url()
        rules = rules_by_id(conn, [h.rule_id for h in hits], today=today, approval_base=base)
        builder = composition.builder()
        return [
            (
                h,
                builder.build(
                    BundleContext(
                        conn=conn,
                        scope=scope,
                        rule=rules[h.rule_id],
                        as_of=day,
                        today=today,
                        include_proposed=value.include_proposed,
                        approval_base=base,
                        config=ctx.config,
                    )
                ),
            )
            for h in hits
        ]


def _refs(bundles: list[Bundle]) -> list[str]:
    refs: list[str] = []
    for bundle in bundles:
        for ref in [bundle.head.ref, *(e.ref for g in bundle.groups for e in g.entries)]:
            if ref not in refs:
                refs.append(ref)
    return refs


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
    found: list[tuple[_Hit, Bundle]] = []
    for scope in scopes:
        found += _search_scope(ctx, scope, terms, value, day, stages)
    found.sort(key=lambda pair: pair[1].head.scope)
    found.sort(key=lambda pair: pair[0].key)
    bundles = [b for _, b in found[: value.limit]]
    stages["heads"] = len(bundles)
    stages["ms"] = round((time.perf_counter() - started) * 1000, 2)
    ctx.log.terms = terms
    ctx.log.stages = stages
    if len(scopes) > 1:
        _log_each_scope(ctx, scopes, bundles)
    else:
        ctx.log.refs = _refs(bundles)
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


def _log_each_scope(ctx: Context, scopes: list[str], bundles: list[Bundle]) -> None:
    """A cross-scope search is logged in every scope it read, under one id, with that scope's refs."""
    for scope in scopes:
        entry = OpLogEntry(
            refs=_refs([b for b in bundles if b.head.scope == scope]),
            terms=ctx.log.terms,
            stages=ctx.log.stages,
            cross_scope=True,
            id=ctx.log.id,
        )
        with ctx.scope_db(scope).write() as conn:
            write_entry(
                conn,
                entry,
                at=ctx.clock.instant(),
                grant_id=ctx.actor,
                channel=ctx.channel,
                operation="search",
                outcome="ok",
                input_sha256=ctx.input_sha256,
            )
    ctx.log.written = True


SEARCH: Capability[SearchInput, SearchOutput] = Capability(
    name="core.search",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.fields("scope", "scopes"),
    input=SearchInput,
    output=SearchOutput,
    description=(
        "Search the adopted rules of a scope by words, with their evidence. Use it before you "
        "answer a question about how things are done, and before proposing a rule (it may "
        "exist). Returns bundles: the rule in force on as_of (default today) with its status, "
        'date and "still valid?" hint, then its sources, the rest of the mail thread, '
        "attachments, the entities it is about (by their path), the rules it replaced or that "
        "replace it, rules contradicting it and rules about the same entities; line is a "
        "one-line summary. entity narrows the search to rules about that entity or one above "
        'it. When you use a rule, tell the person its date and source and pass on "still '
        'valid?"; say "auto-adopted" for rules marked so, never present a proposed rule as '
        "adopted, and say so when an entry is marked proposed (nobody confirmed its link yet)."
    ),
    handler=search,
    mcp=McpExposure("search"),
    http=HttpExposure("POST", "/v1/search"),
    cli=CliExposure(("search",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
    log_operation="search",
)
