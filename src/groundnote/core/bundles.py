"""Search bundles: a head rule and its groups in a fixed order (DESIGN §7, seed 000 §11).

Each group comes from a `GroupProvider`; core provides `source`, `thread`, `attachment`,
`predecessor` and `successor` (`CORE_GROUPS`). The graph subsystem adds `entity`,
`contradicts` and `same-relation` and fills `head.entities` with a `HeadEnricher`, without
touching this module: the composition root `runtime.py` puts them into the search composition
it hands to handlers (`core.search.SearchComposition`). The builder orders groups by
`GROUP_ORDER`, omits empty ones and builds the `line` summary from each provider's
`line_part` (an empty part adds nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol, TypeVar, get_args

from pydantic import BaseModel, Field

from groundnote.config import Config
from groundnote.core.rules import RuleOut, in_force_sql, rule_ref, rules_by_id
from groundnote.core.sources import attachment_ref, source_ref
from groundnote.store.sql import Connection, Row, in_list

__all__ = [
    "CORE_GROUPS",
    "GROUP_ORDER",
    "Bundle",
    "BundleBuilder",
    "BundleContext",
    "CompactBundle",
    "CompactGroup",
    "Entry",
    "Group",
    "GroupKind",
    "GroupProvider",
    "Head",
    "HeadBase",
    "HeadEnricher",
    "HeadEntity",
    "HeadPathItem",
    "Related",
    "head_condition",
]

_T = TypeVar("_T")

GroupKind = Literal[
    "source",
    "thread",
    "attachment",
    "entity",
    "predecessor",
    "successor",
    "contradicts",
    "same-relation",
]
GROUP_ORDER: tuple[GroupKind, ...] = get_args(GroupKind)  # the order of seed 000 §11
EntryKind = Literal["rule", "note", "meeting", "mail", "attachment", "entity"]
EXCERPT = 200
THREAD_MAX = 20
CHAIN_MAX = 10


class Entry(BaseModel):
    kind: EntryKind
    ref: str
    title: str
    date: str | None = Field(description="The day of the item (a rule: its valid_from).")
    excerpt: str | None
    status: str | None = Field(None, description="For rules: their status.")
    origin: Literal["deterministic", "proposed", "human"] = Field(
        "deterministic", description="Of the link the entry hangs on."
    )
    proposed: bool = Field(False, description="Proposed and not yet confirmed: say so when citing.")
    via: str | None = Field(
        None,
        description=(
            "For an entity: the source ref it is reached through (that source concerns the "
            "entity; the rule itself has no link to it). None: linked to the rule directly."
        ),
    )


class Group(BaseModel):
    kind: GroupKind
    entries: list[Entry]


class HeadPathItem(BaseModel):
    ref: str
    name: str
    type: str


class HeadEntity(BaseModel):
    ref: str
    name: str
    type: str
    path: list[HeadPathItem]
    proposed: bool
    via: str | None = Field(None, description="The source ref it is reached through, if any.")


class HeadBase(BaseModel):
    ref: str
    id: str
    scope: str
    statement: str
    date: str = Field(description="The day it holds from (valid_from).")
    valid_from: str
    valid_to: str | None
    status: str
    auto_adopted: bool = Field(description='Adopted by the policy: say "auto-adopted" when citing.')
    proposed: bool = Field(description="Only proposed (include_proposed): not adopted by anyone.")
    source: str | None = Field(description="The first source the evidence cites.")
    quote: str | None
    still_valid: str = Field(description='The "still valid?" hint: pass it on.')
    approval_url: str | None
    match: Literal["text", "semantic", "both"] | None = Field(
        None,
        description=(
            'What found it: "text" (its words), "semantic" (only its meaning: weigh it, the '
            'words differ), "both"; null when semantic search is off.'
        ),
    )


class Head(HeadBase):
    entities: list[HeadEntity] = Field(default_factory=list, max_length=10)


class Bundle(BaseModel):
    head: Head
    groups: list[Group]
    line: str = Field(
        description="One line to cite: id, status, date, statement and what backs it."
    )


class CompactGroup(BaseModel):
    kind: GroupKind
    refs: list[str]
    proposed: list[str] = Field(
        default_factory=list, description="Refs of this group only proposed."
    )
    via: dict[str, str] = Field(
        default_factory=dict,
        description="Entities reached through a source, not linked to the rule: ref → source ref.",
    )


class CompactBundle(BaseModel):
    head: HeadBase
    groups: list[CompactGroup]
    line: str


class Related(BaseModel):
    """One related thing of a compact answer, named once however many bundles cite it."""

    kind: EntryKind
    title: str
    date: str | None
    excerpt: str | None
    status: str | None = None


def head_condition(alias: str, include_proposed: bool) -> str:
    """SQL condition (parameter :day) for a rule that search may show as a head on :day: in
    force then, or, with include_proposed, undecided and inside its window."""
    if not include_proposed:
        return f"({in_force_sql(alias)})"
    return (
        f"(({in_force_sql(alias)}) OR (NOT EXISTS (SELECT 1 FROM rule_decision d "
        f"WHERE d.rule_id = {alias}.id) AND {alias}.valid_from <= :day "
        f"AND ({alias}.valid_to IS NULL OR {alias}.valid_to >= :day)))"
    )


@dataclass(frozen=True)
class BundleContext:
    conn: Connection
    scope: str
    rule: RuleOut
    as_of: str
    today: str
    include_proposed: bool
    approval_base: str
    config: Config
    # What the providers of one bundle share, so a read two of them need is done once
    # (the graph's linked entities feed both the entity group and head.entities).
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # The heads of the page this bundle is one of (empty: this head alone), and what
    # `for_page` read for all of them: a group costs one statement per page, not one per
    # head (on PostgreSQL each statement is a round trip, and a page has up to 50 heads).
    page: tuple[RuleOut, ...] = ()
    page_memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def head_sql(self) -> str:
        """`head_condition` for this search: rules in other groups pass the filter heads pass."""
        return head_condition("r", self.include_proposed)

    def for_page(self, key: str, read: Callable[[Sequence[RuleOut]], _T]) -> _T:
        """What `read` answers for every head of the page: called once per page, by the
        first bundle asking."""
        if key not in self.page_memo:
            self.page_memo[key] = read(self.page or (self.rule,))
        found: _T = self.page_memo[key]
        return found

    @cached_property
    def evidence_sources(self) -> list[Row]:
        """The sources the head's evidence cites, by day: read once for every group using them."""
        return self.page_evidence.get(self.rule.id, [])

    @property
    def page_evidence(self) -> dict[str, list[Row]]:
        """`evidence_sources` of every head of the page, by head rule id."""
        return self.for_page("core.evidence_sources", lambda h: _evidence_sources(self.conn, h))


def _evidence_sources(conn: Connection, heads: Sequence[RuleOut]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    marks, ids = in_list(h.id for h in heads)
    for row in conn.execute(
        "SELECT h.rule_id AS head_id, s.* FROM (SELECT DISTINCT rule_id, source_id "
        f"FROM rule_evidence WHERE rule_id IN ({marks})) h "
        "JOIN source s ON s.id = h.source_id ORDER BY h.rule_id, s.day, s.seq",
        ids,
    ):
        out.setdefault(row["head_id"], []).append(row)
    return out


class GroupProvider(Protocol):
    kind: GroupKind

    def entries(self, ctx: BundleContext) -> list[Entry]: ...

    def line_part(self, entries: list[Entry]) -> str:
        """The group's part of `line`; an empty string adds none."""
        ...


HeadEnricher = Callable[[BundleContext, Head], Head]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _excerpt(text: str | None) -> str | None:
    if not text:
        return None
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def _source_entry(row: Row) -> Entry:
    return Entry(
        kind=row["kind"],
        ref=source_ref(row["id"]),
        title=row["title"] or "(no subject)",
        date=row["day"],
        excerpt=_excerpt(row["body"]),
    )


class SourceGroup:
    kind: GroupKind = "source"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        return [_source_entry(r) for r in ctx.evidence_sources]

    def line_part(self, entries: list[Entry]) -> str:
        return _plural(len(entries), "source", "sources")


# Each cited mail's thread: up by In-Reply-To to its root, then down to every reply; `start`
# keeps the threads of all the page's cited mails apart in one statement. The rows carry
# what an entry shows from the step that found them (by index), so no join of the result
# back to `source` follows: PostgreSQL cannot estimate a recursion's size and planned that
# join as a scan of every source.
_THREADS = """
WITH RECURSIVE up(start, id, in_reply_to, depth) AS (
  SELECT id, id, in_reply_to, 0 FROM source WHERE id IN ({marks})
  UNION
  SELECT up.start, s.id, s.in_reply_to, up.depth + 1 FROM source s
  JOIN up ON s.id = 'mail:' || up.in_reply_to WHERE up.depth < 50),
root(start, id) AS (SELECT u.start, u.id FROM up u
  WHERE u.depth = (SELECT max(v.depth) FROM up v WHERE v.start = u.start)),
down(thread_of, depth, seq, id, kind, title, day, sent_at, body) AS (
  SELECT r.start, 0, s.seq, s.id, s.kind, s.title, s.day, s.sent_at, s.body
  FROM root r JOIN source s ON s.id = r.id
  UNION
  SELECT down.thread_of, down.depth + 1, s.seq, s.id, s.kind, s.title, s.day, s.sent_at, s.body
  FROM source s JOIN down ON s.in_reply_to = substr(down.id, 6) WHERE down.depth < 50)
SELECT * FROM down
"""


def _threads(conn: Connection, cited: dict[str, list[Row]]) -> dict[str, list[Row]]:
    """The thread of every mail cited (`page_evidence`), by that mail's id."""
    mails = sorted({r["id"] for rows in cited.values() for r in rows if r["kind"] == "mail"})
    out: dict[str, list[Row]] = {}
    if mails:
        marks, ids = in_list(mails)
        for row in conn.execute(_THREADS.format(marks=marks), ids):
            out.setdefault(row["thread_of"], []).append(row)
    return out


class ThreadGroup:
    """The other mails of each cited mail's thread, by In-Reply-To (the computed replies_to)."""

    kind: GroupKind = "thread"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        cited = ctx.evidence_sources
        threads = ctx.for_page("core.threads", lambda _: _threads(ctx.conn, ctx.page_evidence))
        seen = {r["id"] for r in cited}
        rows: list[Row] = []
        for source in cited:
            if source["kind"] != "mail":
                continue
            for row in threads.get(source["id"], []):
                if row["id"] not in seen:
                    seen.add(row["id"])
                    rows.append(row)
        rows.sort(key=lambda r: (r["sent_at"] or r["day"], r["seq"]))
        return [_source_entry(r) for r in rows[:THREAD_MAX]]

    def line_part(self, entries: list[Entry]) -> str:
        return _plural(len(entries), "mail in thread", "mails in thread")


def _attachments(conn: Connection, heads: Sequence[RuleOut]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    marks, ids = in_list(h.id for h in heads)
    for row in conn.execute(
        # `cited` by a join on the evidence key, not EXISTS: PostgreSQL ran that EXISTS as a
        # hashed subplan over every evidence row of the scope
        "SELECT h.rule_id AS head_id, a.*, s.day, (c.rule_id IS NOT NULL) AS cited "
        f"FROM (SELECT DISTINCT rule_id, source_id FROM rule_evidence WHERE rule_id IN ({marks})) h "
        "JOIN source_attachment a ON a.source_id = h.source_id JOIN source s ON s.id = a.source_id "
        "LEFT JOIN rule_evidence c ON c.rule_id = h.rule_id AND c.source_id = a.source_id "
        "AND c.n = a.n ORDER BY h.rule_id, cited DESC, s.day, s.seq, a.n",
        ids,
    ):
        out.setdefault(row["head_id"], []).append(row)
    return out


class AttachmentGroup:
    """Attachments the evidence cites, then the other attachments of the cited sources."""

    kind: GroupKind = "attachment"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        rows = ctx.for_page("core.attachments", lambda heads: _attachments(ctx.conn, heads))
        return [
            Entry(
                kind="attachment",
                ref=attachment_ref(r["source_id"], r["n"]),
                title=r["filename"],
                date=r["day"],
                excerpt=_excerpt(r["text"]),
            )
            for r in rows.get(ctx.rule.id, [])
        ]

    def line_part(self, entries: list[Entry]) -> str:
        return _plural(len(entries), "attachment", "attachments")


def _rule_entry(rule: RuleOut) -> Entry:
    return Entry(
        kind="rule",
        ref=rule.ref,
        title=rule.statement
        if len(rule.statement) <= EXCERPT
        else rule.statement[: EXCERPT - 1] + "…",
        date=rule.valid_from,
        excerpt=None,
        status=rule.status,
        proposed=rule.status == "proposed",
    )


def _predecessors(ctx: BundleContext, heads: Sequence[RuleOut]) -> dict[str, list[RuleOut]]:
    """The chain of rules each head replaced, nearest first, walked for all heads at once:
    one statement per step of the longest chain."""
    chains: dict[str, list[str]] = {h.id: [] for h in heads}
    current = {h.id: h.supersedes for h in heads if h.supersedes}
    while current:
        for head, rule_id in current.items():
            chains[head].append(rule_id)
        marks, wanted = in_list(sorted(set(current.values())))
        replaced = {
            r["id"]: r["supersedes"]
            for r in ctx.conn.execute(
                f"SELECT id, supersedes FROM rule WHERE id IN ({marks})", wanted
            )
        }
        step = {head: replaced.get(rule_id) for head, rule_id in current.items()}
        current = {
            head: rule_id
            for head, rule_id in step.items()
            if rule_id and rule_id not in chains[head] and len(chains[head]) < CHAIN_MAX
        }
    rules = rules_by_id(
        ctx.conn,
        [r for chain in chains.values() for r in chain],
        today=ctx.today,
        approval_base=ctx.approval_base,
    )
    return {head: [rules[r] for r in chain if r in rules] for head, chain in chains.items()}


class PredecessorGroup:
    """The rules this one replaced, nearest first (the computed supersedes link)."""

    kind: GroupKind = "predecessor"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        chains = ctx.for_page("core.predecessors", lambda heads: _predecessors(ctx, heads))
        return [_rule_entry(r) for r in chains.get(ctx.rule.id, [])]

    def line_part(self, entries: list[Entry]) -> str:
        return f"supersedes {entries[0].ref.removeprefix('rule/')}"


def _successors(ctx: BundleContext, heads: Sequence[RuleOut]) -> dict[str, list[RuleOut]]:
    """The rules replacing each head, nearest first, for all heads at once: one step per
    generation. A head none replaces (`superseded_by` empty: no successor proposed, adopted
    or superseded) costs nothing."""
    wanted = {"adopted", "superseded"} | ({"proposed"} if ctx.include_proposed else set())
    found: dict[str, list[RuleOut]] = {h.id: [] for h in heads}
    frontier = {h.id: [h.id] for h in heads if h.superseded_by}
    while frontier:
        marks, replaced = in_list(sorted({r for rules in frontier.values() for r in rules}))
        by_seq = ctx.conn.execute(
            f"SELECT supersedes, id FROM rule WHERE supersedes IN ({marks}) ORDER BY seq", replaced
        ).fetchall()
        rules = rules_by_id(
            ctx.conn, [r["id"] for r in by_seq], today=ctx.today, approval_base=ctx.approval_base
        )
        following: dict[str, list[str]] = {}
        for head, ids in frontier.items():
            step = [
                rules[r["id"]]
                for r in by_seq
                if r["supersedes"] in ids and r["id"] in rules and rules[r["id"]].status in wanted
            ]
            found[head].extend(step)
            nxt = [r.id for r in step if r.status != "proposed"]
            if nxt and len(found[head]) < CHAIN_MAX:
                following[head] = nxt
        frontier = following
    return {head: rules[:CHAIN_MAX] for head, rules in found.items()}


class SuccessorGroup:
    """Rules replacing this one, nearest first; proposed ones only with include_proposed."""

    kind: GroupKind = "successor"

    def entries(self, ctx: BundleContext) -> list[Entry]:
        chains = ctx.for_page("core.successors", lambda heads: _successors(ctx, heads))
        return [_rule_entry(r) for r in chains.get(ctx.rule.id, [])]

    def line_part(self, entries: list[Entry]) -> str:
        return f"superseded by {entries[0].ref.removeprefix('rule/')}"


CORE_GROUPS: tuple[GroupProvider, ...] = (
    SourceGroup(),
    ThreadGroup(),
    AttachmentGroup(),
    PredecessorGroup(),
    SuccessorGroup(),
)


class BundleBuilder:
    def __init__(
        self, providers: Iterable[GroupProvider], enrichers: Iterable[HeadEnricher]
    ) -> None:
        """A later provider of a group kind replaces an earlier one; order is GROUP_ORDER's."""
        order = {kind: i for i, kind in enumerate(GROUP_ORDER)}
        by_kind = {p.kind: p for p in providers}
        self.providers = sorted(by_kind.values(), key=lambda p: order[p.kind])
        self.enrichers = list(enrichers)

    def build(self, ctx: BundleContext) -> Bundle:
        rule = ctx.rule
        groups: list[Group] = []
        parts: list[str] = []
        proposed: set[str] = set()
        for provider in self.providers:
            entries = provider.entries(ctx)
            if not entries:
                continue
            groups.append(Group(kind=provider.kind, entries=entries))
            part = provider.line_part(entries)
            if part:
                parts.append(part)
            proposed.update(e.ref for e in entries if e.proposed)
        first_source = groups[0].entries[0].ref if groups and groups[0].kind == "source" else None
        head = Head(
            ref=rule_ref(rule.id),
            id=rule.id,
            scope=ctx.scope,
            statement=rule.statement,
            date=rule.valid_from,
            valid_from=rule.valid_from,
            valid_to=rule.valid_to,
            status=rule.status,
            auto_adopted=rule.auto_adopted,
            proposed=rule.status == "proposed",
            source=first_source,
            quote=rule.evidence.quote,
            still_valid=rule.still_valid,
            approval_url=rule.approval_url,
        )
        for enrich in self.enrichers:
            head = enrich(ctx, head)
        # head.entities repeat the entity group's first entries: each proposed thing counts once
        proposed.update(e.ref for e in head.entities if e.proposed)
        return Bundle(head=head, groups=groups, line=_line(head, parts, len(proposed)))


def _line(head: Head, parts: list[str], proposed: int) -> str:
    state = head.status + (", auto-adopted" if head.auto_adopted else "")
    statement = " ".join(head.statement.split())
    if len(statement) > 100:
        statement = statement[:99] + "…"
    text = f"{head.id} ({state}, from {head.valid_from}): {statement}"
    if proposed:
        parts = [*parts, f"(of which {proposed} proposed)"]
    return f"{text} — {'; '.join(parts)}" if parts else text


def compact(bundles: list[Bundle]) -> tuple[list[CompactBundle], dict[str, Related]]:
    """The MCP form: head.entities left out, each related thing described once in `related`."""
    related: dict[str, Related] = {}
    out = []
    for bundle in bundles:
        groups = []
        for group in bundle.groups:
            for e in group.entries:
                related.setdefault(
                    e.ref,
                    Related(
                        kind=e.kind, title=e.title, date=e.date, excerpt=e.excerpt, status=e.status
                    ),
                )
            groups.append(
                CompactGroup(
                    kind=group.kind,
                    refs=[e.ref for e in group.entries],
                    proposed=[e.ref for e in group.entries if e.proposed],
                    via={e.ref: e.via for e in group.entries if e.via},
                )
            )
        head = HeadBase.model_validate(bundle.head.model_dump(exclude={"entities"}))
        out.append(CompactBundle(head=head, groups=groups, line=bundle.line))
    return out, related
