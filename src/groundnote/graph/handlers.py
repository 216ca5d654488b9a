"""The handlers of the graph capabilities: one transaction per write, guidance on every answer.

`next` follows seed 000 §8 (at most three, in this order): resolve exact/alias → entity_path,
link_propose; candidates without exact → entity_path of the best, entity_create; none →
entity_tree, entity_create; create/move done → link_propose, entity_tree of the parent; tree
with hidden children → entity_tree on the first such node, or the next page.
"""

from __future__ import annotations

import math

from groundnote.capabilities import Context
from groundnote.domain.errors import (
    DepthLimit,
    NotFound,
    ReasonMissing,
    ScopeMismatch,
    ValidationFailed,
)
from groundnote.domain.guidance import Next, PathItem
from groundnote.graph.entities import Author, create_entity, move_entity, scope_of, update_entity
from groundnote.graph.grouped import entity_groups
from groundnote.graph.links import computed_links, propose_link, stored_links
from groundnote.graph.models import (
    Candidate,
    CreateInput,
    CreateOutput,
    EntityOut,
    LinkListInput,
    LinkListOutput,
    LinkProposeInput,
    LinkProposeOutput,
    MoveInput,
    MoveOutput,
    PathInput,
    PathOutput,
    ResolveInput,
    ResolveOutput,
    ScopeTreeInput,
    TreeInput,
    TreeNode,
    TreeOutput,
    UpdateInput,
    UpdateOutput,
)
from groundnote.graph.normalize import normalize
from groundnote.graph.queries import (
    PAGE_SIZE,
    TREE_MAX_DEPTH,
    TREE_MAX_NODES,
    ask_answered,
    ask_path,
    child_nodes,
    entity_out,
    level_counts,
    path_from,
    path_items,
    top_level_page,
    versions,
)
from groundnote.graph.resolve import resolve_key
from groundnote.graph.semantic_tier import semantic_candidates
from groundnote.graph.trigram import index_for
from groundnote.store.sql import Connection, Cursor

__all__ = [
    "entity_create",
    "entity_move",
    "entity_path",
    "entity_resolve",
    "entity_tree",
    "entity_update",
    "link_list",
    "link_propose",
    "scope_tree",
]


def _author(ctx: Context) -> Author:
    return Author.of(ctx.channel, ctx.actor, ctx.clock.instant(), ctx.today())


def _entity(ctx: Context, scope: str, entity_id: str) -> tuple[EntityOut, list[PathItem]]:
    with ctx.scope_db(scope).read() as conn:
        return _entity_in(ctx, conn, scope, entity_id)


def _entity_in(
    ctx: Context, conn: Connection, scope: str, entity_id: str
) -> tuple[EntityOut, list[PathItem]]:
    return _entity_from(ctx, scope, entity_id, _ask_entity(conn, entity_id))


def _ask_entity(conn: Connection, entity_id: str) -> tuple[Cursor, Cursor]:
    """Send the questions of an entity's answer; `_entity_from` reads them, which may be after
    the write they were asked in (PostgreSQL: its COMMIT's round trip brings them)."""
    return ask_answered(conn, entity_id), ask_path(conn, entity_id)


def _entity_from(
    ctx: Context, scope: str, entity_id: str, asked: tuple[Cursor, Cursor]
) -> tuple[EntityOut, list[PathItem]]:
    row = asked[0].fetchone()
    if row is None:
        raise NotFound(
            f"The entity {entity_id} does not exist in scope {scope}.",
            next=[{"tool": "entity_resolve", "why": "find the entity by name"}],
        )
    return entity_out(row, ctx.public_url()), path_from(asked[1])


def _check_scope(scope: str, entity_id: str) -> None:
    if scope_of(entity_id) != scope:
        raise ScopeMismatch(f"The entity {entity_id} belongs to another scope than {scope}.")


def _after_write(entity: EntityOut) -> list[Next]:
    steps = [
        Next(
            tool="link_propose",
            arguments={"scope": entity.scope, "to_ref": f"entity/{entity.id}"},
            why=f"file the item under {entity.name}: add from_ref, type and confidence",
        )
    ]
    if entity.parent_id:
        steps.append(
            Next(
                tool="entity_tree",
                arguments={"scope": entity.scope, "id": entity.parent_id},
                why=f"see the siblings under {entity.parent_id}",
            )
        )
    else:
        steps.append(
            Next(
                tool="entity_tree",
                arguments={"scope": entity.scope},
                why="see the top level of the scope",
            )
        )
    return steps


def _check_similar(scope: str, similar: list[dict[str, object]]) -> list[Next]:
    if not similar:
        return []
    first = similar[0]
    return [
        Next(
            tool="entity_path",
            arguments={"scope": scope, "id": first["id"]},
            why=f"{first['id']} ({first['name']}) elsewhere has a similar name: ask whether it "
            "is the same",
        )
    ]


# -- resolve -----------------------------------------------------------------------------------


def entity_resolve(ctx: Context, value: ResolveInput) -> ResolveOutput:
    key = normalize(value.q)
    ctx.log.terms = [key]
    db = ctx.scope_db(value.scope)
    found = resolve_key(index_for(db), key, type=value.type, query=value.q)
    top_path = found[0].trail if found else []
    if not found:
        # Only on a miss; the tier may first write pending name vectors.
        found = semantic_candidates(db, ctx.config.search, value.q, type=value.type)
    candidates = [
        Candidate(
            id=m.id,
            name=m.name,
            type=m.type,
            status=m.status,
            aliases=m.aliases,
            path=m.path,
            score=m.score,
            match=m.match,
        )
        for m in found
    ]
    ctx.log.refs = [f"entity/{c.id}" for c in candidates]
    if candidates and candidates[0].match in ("exact", "alias"):
        best = candidates[0]
        return ResolveOutput(
            candidates=candidates,
            path=top_path,
            next=[
                Next(
                    tool="entity_path",
                    arguments={"scope": value.scope, "id": best.id},
                    why=f"check the place of {best.id}",
                ),
                Next(
                    tool="link_propose",
                    arguments={"scope": value.scope, "to_ref": f"entity/{best.id}"},
                    why=f"file the item there ({best.id}): add from_ref, type and confidence",
                ),
            ],
        )
    if candidates:
        # Only similar names: the person knows whether one of them is meant, the agent does not.
        best = candidates[0]
        return ResolveOutput(
            candidates=candidates,
            path=[],
            next=[
                Next(
                    tool="entity_path",
                    arguments={"scope": value.scope, "id": best.id},
                    why=(
                        f"only similar names: show the person the path of {best.id} "
                        f"({best.name}) and ask whether it is the one meant before using it"
                    ),
                ),
                Next(tool="entity_create", why="only if the person says none is meant"),
            ],
        )
    return ResolveOutput(
        candidates=[],
        path=[],
        next=[
            Next(tool="entity_tree", why="find the parent"),
            Next(tool="entity_create", why="create it under the parent found"),
        ],
    )


# -- writes ------------------------------------------------------------------------------------


def entity_create(ctx: Context, value: CreateInput) -> CreateOutput:
    db = ctx.scope_db(value.scope)
    with ctx.write(value.scope) as conn:
        written = create_entity(
            conn,
            index_for(db),
            ctx.config.graph,
            value.scope,
            _author(ctx),
            type=value.type,
            name=value.name,
            aliases=value.aliases,
            parent_id=value.parent_id,
            evidence=value.evidence,
            reason=value.reason,
            force=value.force,
        )
        ctx.log.refs = [f"entity/{written.id}"]
        if written.overridden:
            # The approval page shows which candidates the create overrode (§12).
            ctx.log.stages = {"overridden": written.overridden}
        # Asked on the writer, so the answer is exactly what commits (and the writer's page
        # cache is warm, while a reader's is dropped after every commit); read after the COMMIT,
        # whose round trip brings it on PostgreSQL.
        asked = _ask_entity(conn, written.id)
    entity, path = _entity_from(ctx, value.scope, written.id, asked)
    return CreateOutput(
        entity=entity,
        created=True,
        similar=[Candidate(**c) for c in written.similar],
        path=path,
        next=_after_write(entity) + _check_similar(value.scope, written.similar),
    )


def entity_move(ctx: Context, value: MoveInput) -> MoveOutput:
    with ctx.write(value.scope) as conn:
        written = move_entity(
            conn,
            ctx.config.graph,
            value.scope,
            _author(ctx),
            entity_id=value.id,
            parent_id=value.parent_id,
            evidence=value.evidence,
            reason=value.reason,
        )
        ctx.log.refs = [f"entity/{value.id}"]
    entity, path = _entity(ctx, value.scope, value.id)
    steps = (
        _after_write(entity)
        if written.changed
        else [Next(tool="entity_path", why="the entity is already under this parent")]
    )
    return MoveOutput(
        entity=entity,
        moved=written.changed,
        path=path,
        old_path=[PathItem(**p) for p in written.old_path],
        subtree_size=written.subtree_size,
        next=steps,
    )


def entity_update(ctx: Context, value: UpdateInput) -> UpdateOutput:
    db = ctx.scope_db(value.scope)
    with ctx.write(value.scope) as conn:
        written = update_entity(
            conn,
            index_for(db),
            value.scope,
            _author(ctx),
            entity_id=value.id,
            name=value.name,
            aliases_add=value.aliases_add,
            aliases_remove=value.aliases_remove,
            evidence=value.evidence,
            reason=value.reason,
            force=value.force,
        )
        ctx.log.refs = [f"entity/{value.id}"]
        if written.overridden:
            ctx.log.stages = {"overridden": written.overridden}
    entity, path = _entity(ctx, value.scope, value.id)
    return UpdateOutput(
        entity=entity,
        updated=written.changed,
        similar=[Candidate(**c) for c in written.similar],
        path=path,
        next=[
            Next(tool="entity_path", why="see the versions of the entity"),
            Next(tool="link_propose", why=f"file the item under {entity.name}"),
            *_check_similar(value.scope, written.similar),
        ],
    )


# -- reads -------------------------------------------------------------------------------------


def entity_path(ctx: Context, value: PathInput) -> PathOutput:
    _check_scope(value.scope, value.id)
    ctx.log.refs = [f"entity/{value.id}"]
    with ctx.scope_db(value.scope).read() as conn:
        entity, items = _entity_in(ctx, conn, value.scope, value.id)
        history = versions(conn, value.id)
    return PathOutput(
        entity=entity,
        versions=history,
        path=items,
        next=[
            Next(
                tool="link_propose",
                arguments={"scope": value.scope, "to_ref": f"entity/{value.id}"},
                why=f"file the item under {entity.name}: add from_ref, type and confidence",
            ),
            Next(
                tool="entity_tree",
                arguments={"scope": value.scope, "id": value.id},
                why=f"see what lies below {entity.name}",
            ),
            Next(
                tool="link_list",
                arguments={"scope": value.scope, "ref": f"entity/{value.id}"},
                why=f"see what is filed under {entity.name}",
            ),
        ],
    )


def _grow(conn: Connection, nodes: list[TreeNode], depth: int) -> int:
    """Add levels 2…depth node by node, up to 50 children each, while under 200 nodes."""
    total = len(nodes)
    frontier = nodes
    for _ in range(depth - 1):
        following: list[TreeNode] = []
        for node in frontier:
            if node.children == 0 or total >= TREE_MAX_NODES:
                continue
            kids = child_nodes(conn, node.id, 1)[: TREE_MAX_NODES - total]
            node.nodes = kids
            node.hidden_children = node.children - len(kids)
            total += len(kids)
            following.extend(kids)
        frontier = following
    return total


def _first_hidden(nodes: list[TreeNode]) -> TreeNode | None:
    for node in nodes:
        if node.hidden_children > 0:
            return node
        found = _first_hidden(node.nodes)
        if found is not None:
            return found
    return None


def _tree(ctx: Context, scope: str, entity_id: str | None, depth: int, page: int) -> TreeOutput:
    if depth > TREE_MAX_DEPTH:
        raise DepthLimit(
            f"entity_tree shows at most {TREE_MAX_DEPTH} levels at once; {depth} were asked.",
            remedy=f"Ask for depth {TREE_MAX_DEPTH} or less, then expand a node by calling "
            "entity_tree with its id.",
            limit=TREE_MAX_DEPTH,
            next=[{"tool": "entity_tree", "why": f"call again with depth {TREE_MAX_DEPTH}"}],
        )
    entity: EntityOut | None = None
    items: list[PathItem] = []
    if entity_id is not None:
        _check_scope(scope, entity_id)
    with ctx.scope_db(scope).read() as conn:
        if entity_id is None:
            nodes, total = top_level_page(conn, page)
            levels = {"1": total}
        else:
            entity, items = _entity_in(ctx, conn, scope, entity_id)
            ctx.log.refs = [f"entity/{entity_id}"]
            nodes, total = child_nodes(conn, entity_id, page), entity.children
            # the first level is the entity's children: counted already
            levels = (
                level_counts(conn, entity_id, depth)
                if depth > 1
                else ({"1": total} if total else {})
            )
        _grow(conn, nodes, depth)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    steps: list[Next] = []
    hidden = _first_hidden(nodes)
    if hidden is not None:
        steps.append(
            Next(
                tool="entity_tree",
                arguments={"scope": scope, "id": hidden.id},
                why=f"expand {hidden.id} ({hidden.name}): "
                f"{hidden.hidden_children} children not shown",
            )
        )
    if page < pages:
        arguments = {"scope": scope, "page": page + 1} | ({"id": entity_id} if entity_id else {})
        steps.append(
            Next(tool="entity_tree", arguments=arguments, why=f"see page {page + 1} of {pages}")
        )
    if not steps and nodes:
        steps.append(Next(tool="entity_path", why="check the place of a node before filing"))
    return TreeOutput(
        entity=entity,
        nodes=nodes,
        page=page,
        pages=pages,
        total=total,
        levels=levels,
        path=items,
        next=steps[:3],
    )


def entity_tree(ctx: Context, value: TreeInput) -> TreeOutput:
    return _tree(ctx, value.scope, value.id, value.depth, value.page)


def scope_tree(ctx: Context, value: ScopeTreeInput) -> TreeOutput:
    return _tree(ctx, value.scope, None, value.depth, value.page)


# -- links -------------------------------------------------------------------------------------


def _entity_end(from_ref: str, to_ref: str) -> str | None:
    for ref in (to_ref, from_ref):
        if ref.startswith("entity/"):
            return ref.removeprefix("entity/")
    return None


def link_propose(ctx: Context, value: LinkProposeInput) -> LinkProposeOutput:
    if not (value.reason or "").strip():
        raise ReasonMissing(
            "A proposed link needs a reason that names the evidence.",
            remedy="Call again with a reason, e.g. 'the subject names project Nordlicht'.",
        )
    with ctx.write(value.scope) as conn:
        result = propose_link(
            conn,
            value.scope,
            _author(ctx),
            from_ref=value.from_ref,
            to_ref=value.to_ref,
            type=value.type,
            confidence=value.confidence,
            reason=value.reason or "",
            evidence=value.evidence,
        )
        ctx.log.refs = [value.from_ref, value.to_ref]
    end = _entity_end(value.from_ref, value.to_ref)
    items: list[PathItem] = []
    if end is not None:
        with ctx.scope_db(value.scope).read() as conn:
            items = path_items(conn, end)
    steps = [Next(tool="link_list", why=f"see everything linked to {value.to_ref}")]
    if end is not None:
        steps.append(Next(tool="entity_path", why=f"check the place of {end}"))
    return LinkProposeOutput(link=result.link, created=result.created, path=items, next=steps)


def link_list(ctx: Context, value: LinkListInput) -> LinkListOutput:
    db = ctx.scope_db(value.scope)
    ctx.log.refs = [value.ref]
    end = value.ref.removeprefix("entity/") if value.ref.startswith("entity/") else None
    if end is not None:
        _check_scope(value.scope, end)
    if value.grouped and end is None:
        raise ValidationFailed(
            "grouped: true works on an entity only.",
            remedy="Call link_list with an entity/<id> ref, or without grouped.",
        )
    with db.read() as conn:
        items = path_items(conn, end) if end is not None else []
        if end is not None and not items:
            raise NotFound(
                f"The entity {end} does not exist in scope {value.scope}.",
                next=[{"tool": "entity_resolve", "why": "find the entity by name"}],
            )
        if value.grouped and end is not None:
            groups, total = entity_groups(
                conn,
                end,
                ctx.config.graph.proposed_min_confidence,
                ctx.clock.instant(),
                value.page,
            )
            pages = max(1, math.ceil(total / PAGE_SIZE))
            return LinkListOutput(
                links=[],
                groups=groups,
                page=value.page,
                pages=pages,
                total=total,
                path=items,
                next=_list_next(value.page, pages, end),
            )
        links = stored_links(conn, [value.ref]) + computed_links(conn, value.ref)
    links.sort(key=lambda link: link.valid_from, reverse=True)
    total = len(links)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    start = (value.page - 1) * PAGE_SIZE
    return LinkListOutput(
        links=links[start : start + PAGE_SIZE],
        page=value.page,
        pages=pages,
        total=total,
        path=items,
        next=_list_next(value.page, pages, end),
    )


def _list_next(page: int, pages: int, end: str | None) -> list[Next]:
    steps = []
    if page < pages:
        steps.append(Next(tool="link_list", why=f"see page {page + 1} of {pages}"))
    if end is not None:
        steps.append(Next(tool="entity_tree", why=f"see what lies below {end}"))
    steps.append(Next(tool="link_propose", why="file a related item with a confidence"))
    return steps[:3]
