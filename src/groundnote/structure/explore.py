"""The reads behind the explorer pages (issue 18): a scope at a glance, its tree, an entity with
its history and neighbourhood, search, and the operation log.

Where graph or core already answer a question (the tree, an entity with its versions, the
grouped links, search) the handler calls their handler or reader, so a person sees what an
agent would be told; the SQL here covers only what no other read gives (tallies, reviews per
version, the log)."""

from __future__ import annotations

import json
import math

from groundnote.capabilities import Context
from groundnote.core.capabilities import CAPABILITIES as CORE_CAPABILITIES
from groundnote.core.handlers import search as core_search
from groundnote.core.models import SearchInput
from groundnote.domain.errors import NotFound
from groundnote.domain.guidance import PathItem
from groundnote.domain.ids import scope_of
from groundnote.graph import handlers as graph
from groundnote.graph.capabilities import CAPABILITIES as GRAPH_CAPABILITIES
from groundnote.graph.counters import log_counts, tallies
from groundnote.graph.grouped import entity_groups
from groundnote.graph.links import stored_links
from groundnote.graph.models import PathInput, TreeInput, VersionOut
from groundnote.graph.queries import PAGE_SIZE, child_nodes, path_items
from groundnote.store.sql import Connection, Row
from groundnote.structure.explore_models import (
    ACTIVITY_PAGE,
    NEIGHBOURS_SHOWN,
    ActivityInput,
    ActivityPage,
    ActivityRow,
    EntityInput,
    EntityPage,
    Neighbour,
    NeighbourGroup,
    Neighbourhood,
    ReviewView,
    ScopeInput,
    ScopePage,
    ScopeSearchInput,
    ScopeSearchPage,
    ScopeTreeInput,
    ScopeTreePage,
    Tally,
    VersionView,
)
from groundnote.structure.state import PENDING_VERSIONS_SQL
from groundnote.structure.views import counts, end_view

__all__ = ["activity", "entity", "scope_page", "search", "tree"]

# Operations that only read, as core and graph declare them (a read-only capability logging to
# the scope file): the overview's "latest changes" leave them out, and so does the activity page
# unless asked. Page views are logged as approval_* and are reads too.
READ_OPERATIONS = tuple(
    sorted(
        {
            cap.log_operation
            for cap in (*CORE_CAPABILITIES, *GRAPH_CAPABILITIES)
            if cap.log_operation and cap.annotations.read_only
        }
    )
)
_NOT_A_READ = (
    f"operation NOT IN ({','.join('?' * len(READ_OPERATIONS))}) "
    "AND operation NOT LIKE 'approval\\_%' ESCAPE '\\'"
)


def _is_read(operation: str) -> bool:
    return operation in READ_OPERATIONS or operation.startswith("approval_")


def _activity_row(row: Row) -> ActivityRow:
    refs = json.loads(row["refs"])
    return ActivityRow(
        id=row["id"],
        at=row["at"],
        actor=row["grant_id"],
        channel=row["channel"],
        operation=row["operation"],
        outcome=row["outcome"],
        refs=[str(r) for r in refs] if isinstance(refs, list) else [],
    )


def _tallied(kept: dict[str, int], prefix: str) -> list[Tally]:
    return [
        Tally(key=name.removeprefix(prefix), count=n)
        for name, n in sorted(kept.items())
        if name.startswith(prefix) and n > 0
    ]


def scope_page(ctx: Context, value: ScopeInput) -> ScopePage:
    with ctx.scope_db(value.scope).read() as conn:
        latest = conn.execute(
            f"SELECT * FROM search_log WHERE {_NOT_A_READ} ORDER BY at DESC, id DESC LIMIT 10",
            READ_OPERATIONS,
        ).fetchall()
        # Counted with every write (graph/counters.py), so the page reads them, not the store.
        kept = tallies(conn)
        return ScopePage(
            scope=value.scope,
            entities=_tallied(kept, "entities:"),
            rules=_tallied(kept, "rules:"),
            sources=_tallied(kept, "sources:"),
            pending=counts(conn),
            top_level=kept.get("top_level", 0),
            latest=[_activity_row(r) for r in latest],
        )


def _not_found(scope: str, entity_id: str) -> NotFound:
    # The same words for an entity of another scope as for one that never existed.
    return NotFound(
        f"The entity {entity_id} does not exist in scope {scope}.",
        remedy="Open the scope's tree and follow it down, or search for the name.",
    )


def tree(ctx: Context, value: ScopeTreeInput) -> ScopeTreePage:
    if value.id is not None and scope_of(value.id) != value.scope:
        raise _not_found(value.scope, value.id)
    try:
        out = graph.entity_tree(
            ctx, TreeInput(scope=value.scope, id=value.id, depth=1, page=value.page)
        )
    except NotFound as exc:
        raise _not_found(value.scope, value.id or "") from exc
    return ScopeTreePage(scope=value.scope, tree=out)


def _reviews(conn: Connection, entity_id: str) -> dict[int, list[ReviewView]]:
    found: dict[int, list[ReviewView]] = {}
    prefix = f"entity/{entity_id}@"
    for r in conn.execute(
        "SELECT * FROM review WHERE target LIKE ? ESCAPE '\\' ORDER BY seq",
        (prefix.replace("_", "\\_").replace("%", "\\%") + "%",),
    ):
        version = r["target"].removeprefix(prefix)
        if not version.isdigit():
            continue
        found.setdefault(int(version), []).append(
            ReviewView(
                id=r["id"],
                verdict=r["verdict"],
                by=r["decided_by"],
                at=r["decided_at"],
                reason=r["reason"],
                new_version=r["new_version"],
            )
        )
    return found


def _pending_versions(conn: Connection, entity_id: str) -> set[int]:
    rows = conn.execute(f"{PENDING_VERSIONS_SQL} AND v.id = ?", (entity_id,)).fetchall()
    return {int(r["version"]) for r in rows}


def _timeline(conn: Connection, entity_id: str, history: list[VersionOut]) -> list[VersionView]:
    """Each version against the one before it: the readable diff of name, aliases, parent."""
    reviews = _reviews(conn, entity_id)
    pending = _pending_versions(conn, entity_id)
    paths: dict[str, list[PathItem]] = {}

    def parent_path(parent_id: str | None) -> list[PathItem]:
        if parent_id is None:
            return []
        if parent_id not in paths:
            paths[parent_id] = path_items(conn, parent_id)
        return paths[parent_id]

    out: list[VersionView] = []
    previous: VersionOut | None = None
    for v in history:
        moved = previous is not None and previous.parent_id != v.parent_id
        before_aliases = previous.aliases if previous else []
        out.append(
            VersionView(
                version=v.version,
                change=v.change,
                status=v.status,
                name=v.name,
                channel=v.channel,
                changed_by=v.changed_by,
                changed_at=v.changed_at,
                reason=v.reason,
                evidence=v.evidence,
                renamed_from=previous.name if previous and previous.name != v.name else None,
                aliases_added=[a for a in v.aliases if a not in before_aliases],
                aliases_removed=[a for a in before_aliases if a not in v.aliases],
                parent_before=parent_path(previous.parent_id) if moved and previous else None,
                parent_after=parent_path(v.parent_id),
                reviews=reviews.get(v.version, []),
                pending=v.version in pending,
            )
        )
        previous = v
    out.reverse()
    return out


def _neighbour_group(kind: str, found: list[Neighbour]) -> NeighbourGroup:
    ordered = sorted(found, key=lambda n: (n.proposed, n.label.lower(), n.ref))
    return NeighbourGroup(kind=kind, total=len(found), shown=ordered[:NEIGHBOURS_SHOWN])


def _neighbourhood(
    conn: Connection, entity_id: str, path: list[PathItem], children: int, now: str
) -> Neighbourhood:
    """The entity's own surroundings for the picture: its parent, children, and whatever its
    open links reach, grouped by kind; each group capped, its total kept for "+N more"."""
    groups: list[NeighbourGroup] = []
    if len(path) > 1:
        parent = path[-2]
        groups.append(
            NeighbourGroup(
                kind="parent",
                total=1,
                shown=[
                    Neighbour(
                        ref=f"entity/{parent.id}",
                        label=parent.name,
                        link_type="parent",
                        direction="parent",
                        proposed=False,
                        entity_id=parent.id,
                    )
                ],
            )
        )
    if children:
        kids = child_nodes(conn, entity_id, 1)
        groups.append(
            NeighbourGroup(
                kind="child",
                total=children,
                shown=[
                    Neighbour(
                        ref=f"entity/{k.id}",
                        label=k.name,
                        link_type="child",
                        direction="child",
                        proposed=k.pending,
                        entity_id=k.id,
                    )
                    for k in kids[:NEIGHBOURS_SHOWN]
                ],
            )
        )
    me = f"entity/{entity_id}"
    by_kind: dict[str, list[Neighbour]] = {}
    for link in stored_links(conn, [me]):
        if link.status == "rejected" or not (link.valid_to is None or link.valid_to > now):
            continue
        out = link.from_ref == me
        other = link.to_ref if out else link.from_ref
        kind = other.split("/", 1)[0]
        if kind not in ("rule", "source", "attachment", "entity"):
            continue
        by_kind.setdefault(kind, []).append(
            Neighbour(
                ref=other,
                label=other,  # resolved below, only for those drawn
                link_type=link.type,
                direction="out" if out else "in",
                proposed=link.status == "proposed",
                entity_id=other.removeprefix("entity/") if kind == "entity" else None,
            )
        )
    for kind in ("rule", "source", "attachment", "entity"):
        if kind in by_kind:
            group = _neighbour_group(kind, by_kind[kind])
            for n in group.shown:
                n.label = end_view(conn, n.ref).label
            groups.append(group)
    return Neighbourhood(groups=groups)


def entity(ctx: Context, value: EntityInput) -> EntityPage:
    [scope] = ctx.scopes  # the one the entity id carries
    try:
        found = graph.entity_path(ctx, PathInput(scope=scope, id=value.id))
    except NotFound as exc:
        raise _not_found(scope, value.id) from exc
    now = ctx.clock.instant()
    with ctx.scope_db(scope).read() as conn:
        groups, total = entity_groups(
            conn, value.id, ctx.config.graph.proposed_min_confidence, now, value.links_page
        )
        timeline = _timeline(conn, value.id, found.versions)
        picture = _neighbourhood(conn, value.id, found.path, found.entity.children, now)
    return EntityPage(
        scope=scope,
        entity=found.entity,
        path=found.path,
        versions=timeline,
        groups=groups,
        links_page=value.links_page,
        links_pages=max(1, math.ceil(total / PAGE_SIZE)),
        links_total=total,
        neighbourhood=picture,
    )


def search(ctx: Context, value: ScopeSearchInput) -> ScopeSearchPage:
    q = (value.q or "").strip()
    if not q:
        return ScopeSearchPage(scope=value.scope, q="", proposed=value.proposed, result=None)
    result = core_search(
        ctx,
        SearchInput(
            scope=value.scope,
            query=q,
            include_proposed=value.proposed,
            limit=20,
            compact=False,
        ),
    )
    return ScopeSearchPage(scope=value.scope, q=q, proposed=value.proposed, result=result)


def activity(ctx: Context, value: ActivityInput) -> ActivityPage:
    where: list[str] = [] if value.reads else [_NOT_A_READ]
    params: list[object] = [] if value.reads else list(READ_OPERATIONS)
    if value.actor:
        where.append("grant_id = ?")
        params.append(value.actor)
    if value.operation:
        where.append("operation = ?")
        params.append(value.operation)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    with ctx.scope_db(value.scope).read() as conn:
        rows = conn.execute(
            f"SELECT * FROM search_log {clause} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?",
            (*params, ACTIVITY_PAGE, (value.page - 1) * ACTIVITY_PAGE),
        ).fetchall()
        # The totals and the filters' choices from the log's counters, not from the log.
        counted = log_counts(conn)
    total = sum(
        c.n
        for c in counted
        if (value.reads or not _is_read(c.operation))
        and value.actor in (None, "", c.actor)
        and value.operation in (None, "", c.operation)
    )
    actors = sorted({c.actor for c in counted})
    operations = sorted({c.operation for c in counted})
    return ActivityPage(
        scope=value.scope,
        actor=value.actor,
        operation=value.operation,
        reads=value.reads,
        actors=actors,
        operations=operations,
        total=total,
        page=value.page,
        pages=max(1, math.ceil(total / ACTIVITY_PAGE)),
        rows=[_activity_row(r) for r in rows],
    )
