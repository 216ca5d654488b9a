"""`search`: full text over rule statements and source text; heads are rules in force on
`as_of`, ranked by full-text score then recency, each built into a bundle. With `search.semantic` on, the
rules and sources nearest to the question by embedding are fused with the full-text hits
(core/hybrid.py), and each head says what found it (`match`); off, the answer is full text
alone, exactly as before embeddings existed. Every search is logged with
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

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groundnote.capabilities import (
    Context,
)
from groundnote.config import Config
from groundnote.core.bundles import (
    CORE_GROUPS,
    Bundle,
    BundleBuilder,
    BundleContext,
    GroupProvider,
    HeadEnricher,
    head_condition,
)
from groundnote.core.fts import expand_prefixes, match_all, match_any
from groundnote.core.hybrid import fuse, shared_terms, votes
from groundnote.core.models import SearchInput
from groundnote.core.rules import rules_by_id
from groundnote.core.vectors import VectorIndex, vector_index
from groundnote.domain.errors import ValidationFailed
from groundnote.embedding import embedder_for
from groundnote.embedding.base import Vector
from groundnote.store import Database
from groundnote.store.dialect import dialect_of
from groundnote.store.oplog import OpLogEntry, write_entry
from groundnote.store.sql import Connection, in_list

__all__ = [
    "POOL_FACTOR",
    "POOL_MIN",
    "RANK_WINDOW",
    "EntityFilter",
    "HeadRestriction",
    "Hit",
    "SearchComposition",
    "log_each_scope",
    "refs_of",
    "search_scope",
]


POOL_FACTOR = 4
POOL_MIN = 40
RANK_WINDOW = 1000
# Nearest rules and nearest sources read per semantic search, before the head filter.
SEMANTIC_POOL = 100
# The local model's similarities bunch together (unrelated texts score 0.74-0.79): besides
# the floor, a semantic hit must come within this distance of the best one.
SEMANTIC_MARGIN = 0.06


@dataclass(frozen=True)
class HeadRestriction:
    """An SQL subquery selecting the rule ids a head must be among; parameter names are the
    filter's own (prefix them with its name) and must not collide with search's `day`, `s<n>`."""

    sql: str
    params: dict[str, Any] = field(default_factory=dict)


EntityFilter = Callable[[Connection, Config, str, str, str], HeadRestriction]
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
        self, conn: Connection, config: Config, scope: str, entity: str | None, day: str
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
class Hit:
    rule_id: str
    # stage, direct before via source, score, -recency; equal keys keep the order of the
    # scopes, then of the rules (older first): a total order on every backend
    key: tuple[int, int, float, str]


def _heads_for(
    conn: Connection,
    seqs: dict[int, float],
    day: str,
    include_proposed: bool,
    only: HeadRestriction | None,
) -> list[tuple[str, int, float, str]]:
    if not seqs:
        return []
    params: dict[str, Any] = {"day": day}
    _, padded = in_list(seqs)  # the statement's text repeats: PostgreSQL keeps its plan
    params.update({f"s{i}": seq for i, seq in enumerate(padded)})
    marks = ",".join(f":s{i}" for i in range(len(padded)))
    restrict = ""
    if only is not None:
        restrict = f" AND r.id IN ({only.sql})"
        params.update(only.params)
    rows = conn.execute(
        f"SELECT r.id, r.seq, r.valid_from FROM rule r WHERE r.seq IN ({marks}) "
        f"AND {head_condition('r', include_proposed)}{restrict} ORDER BY r.seq",
        params,
    ).fetchall()
    return [(r["id"], r["seq"], seqs[r["seq"]], r["valid_from"]) for r in rows]


# Later days sort first: invert each digit so that plain ascending order works.
_NEWER_FIRST = str.maketrans("0123456789", "9876543210")


def _recency(day: str) -> str:
    return day.translate(_NEWER_FIRST)


def _ranked(
    conn: Connection,
    table: str,
    expr: str,
    pool: int,
    only: HeadRestriction | None = None,
) -> tuple[dict[int, float], bool]:
    """The best `pool` matches by score among the newest RANK_WINDOW matches, and whether capped.

    Ranking every match of a common word costs time in proportion to the scope; streaming the
    matches newest first and ranking a bounded window keeps a search's cost flat, and below the
    window (every selective query) the order is exactly the score's (bm25 on SQLite, ts_rank on
    PostgreSQL; equal scores newer first). The window is sorted inside the database, so only
    the pool crosses into Python. `only` (rule_fts, whose rowid is the rule's seq) keeps the
    window to the allowed rules.
    """
    params: dict[str, Any] = {"expr": expr, "window": RANK_WINDOW, "pool": pool}
    restrict = ""
    if only is not None:
        restrict = f" AND rowid IN (SELECT seq FROM rule WHERE id IN ({only.sql}))"
        params.update(only.params)
    rows = conn.execute(dialect_of(conn).text_ranked(table, restrict), params).fetchall()
    return {r[0]: r[1] for r in rows}, bool(rows) and rows[0][2] == RANK_WINDOW


@dataclass
class _Stage:
    """One pass of the search: a text query over both indexes, and what it needs to find."""

    conn: Connection
    number: int
    expr: str
    pool: int
    day: str
    include_proposed: bool
    only: HeadRestriction | None

    def hits(self, wanted: int, known: set[str], stages: dict[str, Any]) -> list[Hit]:
        """Heads of this stage not in `known`; sources are read only if direct hits fall short.

        Direct hits sort before hits through a source, so once `wanted` direct heads are in
        hand no source hit can reach the page, and the costlier source index is skipped
        (`source_hits` is then null in the log).
        """
        direct, capped = _ranked(self.conn, "rule_fts", self.expr, self.pool, self.only)
        hits = [
            Hit(rid, (self.number, 0, rank, _recency(vf)))
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
            marks, seqs = in_list(source_rank)
            for row in self.conn.execute(
                f"SELECT r.seq, s.seq FROM source s JOIN rule_evidence e ON e.source_id = s.id "
                f"JOIN rule r ON r.id = e.rule_id WHERE s.seq IN ({marks})",
                seqs,
            ):
                rank = source_rank[row[1]]
                if row[0] not in direct and rank < via.get(row[0], 0.0):
                    via[row[0]] = rank
        hits += [
            Hit(rid, (self.number, 1, rank, _recency(vf)))
            for rid, _, rank, vf in self._heads(via)
            if rid not in known
        ]
        return hits

    def _heads(self, seqs: dict[int, float]) -> list[tuple[str, int, float, str]]:
        return _heads_for(self.conn, seqs, self.day, self.include_proposed, self.only)


@dataclass(frozen=True)
class _Semantic:
    """The query's side of a semantic search in one scope: its vector and the scope's index."""

    index: VectorIndex
    query: Vector
    floor: float


def _semantic_side(
    ctx: Context, db: Database, query: str, stages: dict[str, Any]
) -> _Semantic | None:
    """None when semantic search is off; else the caught-up index and the query's vector."""
    config = ctx.config.search
    if config.semantic == "off":
        return None
    started = time.perf_counter()
    embedder = embedder_for(config)
    index = vector_index(db, embedder)
    embedded = index.catch_up()
    vector = embedder.query(query)
    stages["semantic"] = {
        "model": embedder.model_id,
        "embedded": embedded,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }
    return _Semantic(index, vector, config.min_similarity)


def _semantic_heads(
    conn: Connection,
    side: _Semantic,
    wanted: int,
    day: str,
    include_proposed: bool,
    only: HeadRestriction | None,
) -> list[tuple[str, str]]:
    """(rule id, recency) of the heads nearest to the query, best first: those near by their
    statement, then those near only through a source their evidence cites (as full text puts
    direct hits first: a mail many rules cite must not lift them all above the one meant).
    As in full text, the sources are compared only when the statements give fewer than
    `wanted` heads: they are half of what a search would read."""

    def heads(seqs: dict[int, float], stage: int) -> list[tuple[tuple[int, float, str, str], str]]:
        found = _heads_for(
            conn, {seq: -score for seq, score in seqs.items()}, day, include_proposed, only
        )
        return [((stage, rank, _recency(vf), rid), _recency(vf)) for rid, _, rank, vf in found]

    direct = dict(side.index.nearest(side.query, "rule", SEMANTIC_POOL, side.floor))
    top = max(direct.values(), default=side.floor)
    ranked = heads({seq: v for seq, v in direct.items() if v >= top - SEMANTIC_MARGIN}, 0)
    if len(ranked) < wanted:
        sources = dict(side.index.nearest(side.query, "source", SEMANTIC_POOL, side.floor))
        top = max(top, *sources.values()) if sources else top
        via: dict[int, float] = {}
        if sources:
            marks = ",".join("?" for _ in sources)
            for rule_seq, source_seq in conn.execute(
                f"SELECT r.seq, s.seq FROM source s JOIN rule_evidence e ON e.source_id = s.id "
                f"JOIN rule r ON r.id = e.rule_id WHERE s.seq IN ({marks}) ORDER BY r.seq, s.seq",
                list(sources),
            ):
                score = sources[source_seq]
                if rule_seq not in direct and score >= top - SEMANTIC_MARGIN:
                    via[rule_seq] = max(via.get(rule_seq, -1.0), score)
        ranked += heads(via, 1)
    ranked.sort()
    return [(key[3], recency) for key, recency in ranked]


def _voting(conn: Connection, terms: list[str], hits: list[Hit]) -> set[str]:
    """The full-text hits that vote in the fusion: a first-stage hit holds every term; a
    second-stage hit votes when its statement or quote shares enough of them, one found only
    through a source does not."""
    voting = {h.rule_id for h in hits if h.key[0] == 1}
    wider = [h.rule_id for h in hits if h.key[0] == 2 and h.key[1] == 0]
    if wider:
        marks = ",".join("?" for _ in wider)
        for rid, statement, quote in conn.execute(
            f"SELECT id, statement, evidence_quote FROM rule WHERE id IN ({marks}) ORDER BY id",
            wider,
        ):
            if votes(terms, shared_terms(terms, f"{statement} {quote or ''}")):
                voting.add(rid)
    return voting


def _hybrid(
    conn: Connection,
    terms: list[str],
    hits: list[Hit],
    semantic: list[tuple[str, str]],
    limit: int,
) -> list[tuple[Hit, str]]:
    """The page: fused heads first (key stage 0, by fused score), then the full-text hits that
    did not vote, in today's order."""
    recency = {h.rule_id: h.key[3] for h in hits} | dict(semantic)
    fused = fuse([h.rule_id for h in hits], _voting(conn, terms, hits), [r for r, _ in semantic])
    page = [(Hit(f.rule_id, (0, 0, -f.score, recency[f.rule_id])), f.match) for f in fused]
    placed = {f.rule_id for f in fused}
    page += [
        (Hit(h.rule_id, (h.key[0] + 1, h.key[1], h.key[2], h.key[3])), "text")
        for h in hits
        if h.rule_id not in placed
    ]
    return page[:limit]


def search_scope(
    ctx: Context, scope: str, terms: list[str], value: SearchInput, day: str, stages: dict[str, Any]
) -> list[tuple[Hit, Bundle]]:
    pool = max(POOL_MIN, value.limit * POOL_FACTOR)
    composition = ctx.services.get(SearchComposition)
    db = ctx.scope_db(scope)
    semantic = _semantic_side(ctx, db, value.query, stages)
    with db.read() as conn:
        only = composition.restriction(conn, ctx.config, scope, value.entity, day)
        words = expand_prefixes(conn, terms)
        dialect = dialect_of(conn)
        every = dialect.text_query(match_all(terms, words))
        first = _Stage(conn, 1, every, pool, day, value.include_proposed, only)
        hits = first.hits(value.limit, set(), stages)
        wider = match_any(terms, words)
        if len(hits) < value.limit and len(terms) > 1 and wider.terms:
            any_ = dialect.text_query(wider)
            second = _Stage(conn, 2, any_, pool, day, value.include_proposed, only)
            known = {h.rule_id for h in hits}
            hits += second.hits(value.limit - len(hits), known, stages)
        hits.sort(key=lambda h: h.key)
        hits = hits[: value.limit]
        matched: list[tuple[Hit, str | None]]
        if semantic is None:
            matched = [(h, None) for h in hits]
        else:
            near = _semantic_heads(conn, semantic, value.limit, day, value.include_proposed, only)
            matched = list(_hybrid(conn, terms, hits, near, value.limit))
        today = ctx.today()
        base = ctx.public_url()
        rules = rules_by_id(conn, [h.rule_id for h, _ in matched], today=today, approval_base=base)
        builder = composition.builder()
        # the bundles of one page read their groups together (BundleContext.for_page)
        page = tuple(rules[h.rule_id] for h, _ in matched)
        page_memo: dict[str, Any] = {}
        found = []
        for h, match in matched:
            bundle = builder.build(
                BundleContext(
                    conn=conn,
                    scope=scope,
                    rule=rules[h.rule_id],
                    as_of=day,
                    today=today,
                    include_proposed=value.include_proposed,
                    approval_base=base,
                    config=ctx.config,
                    page=page,
                    page_memo=page_memo,
                )
            )
            bundle.head.match = match  # type: ignore[assignment]
            found.append((h, bundle))
        return found


def refs_of(bundles: list[Bundle]) -> list[str]:
    refs: list[str] = []
    for bundle in bundles:
        for ref in [bundle.head.ref, *(e.ref for g in bundle.groups for e in g.entries)]:
            if ref not in refs:
                refs.append(ref)
    return refs


def log_each_scope(ctx: Context, scopes: list[str], bundles: list[Bundle]) -> None:
    """A cross-scope search is logged in every scope it read, under one id, with that scope's refs."""
    for scope in scopes:
        entry = OpLogEntry(
            refs=refs_of([b for b in bundles if b.head.scope == scope]),
            terms=ctx.log.terms,
            stages=ctx.log.stages,
            cross_scope=True,
            id=ctx.log.id,
        )
        with ctx.scope_db(scope).append() as conn:
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
