"""The eight graph tools and their HTTP routes and CLI commands (seed 000 §9.2, DESIGN §8.3).

Descriptions are the seed's, verbatim, but for one sentence added to entity_create's: since
issue 21 a similar name under another parent is created and listed, not refused (README,
"Finding entities, and the duplicate check"). The entity `type` enum is built per request from the
configuration (`adapt_schema`), so a type outside it is refused by the schema itself.
"""

from __future__ import annotations

from typing import Any

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.graph import handlers
from groundnote.graph.models import (
    CreateInput,
    CreateOutput,
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
    TreeOutput,
    UpdateInput,
    UpdateOutput,
)

__all__ = ["CAPABILITIES", "DESCRIPTIONS", "type_enum"]

DESCRIPTIONS = {
    "entity_resolve": "Find existing entities by name, alias or misspelling in one scope. Call it before every entity_create and whenever a name from a mail, document or conversation should be matched to an entity. Returns at most five candidates with score, how they matched and their full path. An exact or alias match means: use it. Several close candidates: show their paths and ask the person.",
    "entity_create": "Create one entity under a parent found with entity_resolve (parent_id null only for a new top level). Use it only when entity_resolve found nothing that fits. It is usable at once, with status unconfirmed, until a person confirms it on the approval page. It checks for duplicates itself: if a similar entity exists it creates nothing and answers duplicate-candidate with the candidates; use force: true with a reason only when the person says the new one is different. A similar name under another parent does not stop it: the entity is created and the look-alikes are listed under similar; show them to the person.",
    "entity_move": "Move an entity with its whole subtree under another parent (parent_id null: top level), for example a department into another division. Takes effect at once as a new version; the old version stays in the history, and the move is unconfirmed until a person confirms or reverts it on the approval page. Show the person the old and the new path first. Refused with cycle if the new parent lies inside the moved subtree.",
    "entity_update": "Rename an entity or add and remove its aliases, for example a short name or a spelling used in mails. Takes effect at once as a new version; the old version stays in the history, and the change is unconfirmed until a person confirms or reverts it on the approval page. The new name and added aliases are checked for duplicates like entity_create: on duplicate-candidate use force: true with a reason only when the person says the entity is different.",
    "entity_tree": "Show the entities below one entity (or the top level of a scope): direct children by default, at most depth 3, 50 per page. Every node says how many children it has and how many are hidden; expand a node by calling again with its id. Use it step by step to get an overview or to find a parent; never page through a whole tree unasked.",
    "entity_path": "Return the full path of one entity from the top level down, its status and its versions including moves. Use it when only the place of an entity is asked, and to check a candidate before filing something under it.",
    "link_propose": "Propose a link inside one scope between a rule, source, attachment or entity, for example a mail concerns a project or a document belongs to an object. Give an honest confidence from 0 to 1 and a reason that names the evidence. A proposed link counts in search bundles only once a person confirms it or its confidence reaches the configured minimum, and it is always marked as proposed. Thread, attachment, source and supersedes links exist already; do not propose them.",
    "link_list": "List the links of one item: stored and derived ones, proposed ones with their confidence. With grouped: true on an entity it returns everything about the entity and its descendants, grouped by kind with dates. 50 per page.",
}


def type_enum(schema: dict[str, Any], config: Any) -> dict[str, Any]:
    """Put the configured entity types into the `type` property as an enum."""
    types = list(config.graph.entity_types)
    prop = schema.get("properties", {}).get("type")
    if prop is None:
        return schema
    branches = prop.get("anyOf")
    if branches:  # optional: only the string branch gets the enum
        for branch in branches:
            if branch.get("type") == "string":
                branch["enum"] = types
    else:
        prop["enum"] = types
    return schema


_READ = Annotations(read_only=True, idempotent=True)
_WRITE = Annotations(read_only=False, destructive=False, idempotent=False)

CAPABILITIES: list[Capability[Any, Any]] = [
    Capability(
        name="graph.entity_resolve",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ResolveInput,
        output=ResolveOutput,
        description=DESCRIPTIONS["entity_resolve"],
        handler=handlers.entity_resolve,
        mcp=McpExposure("entity_resolve", "Find an entity by name"),
        http=HttpExposure("POST", "/v1/entities/resolve"),
        cli=CliExposure(("entity", "resolve")),
        annotations=_READ,
        policies=Policies(benchmark="required"),
        log_operation="resolve_entity",
        adapt_schema=type_enum,
    ),
    Capability(
        name="graph.entity_create",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.field("scope"),
        input=CreateInput,
        output=CreateOutput,
        description=DESCRIPTIONS["entity_create"],
        handler=handlers.entity_create,
        mcp=McpExposure("entity_create", "Create an entity"),
        http=HttpExposure("POST", "/v1/entities"),
        cli=CliExposure(("entity", "create")),
        annotations=_WRITE,
        policies=Policies(benchmark="required"),
        log_operation="create_entity",
        adapt_schema=type_enum,
    ),
    Capability(
        name="graph.entity_move",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.field("scope"),
        input=MoveInput,
        output=MoveOutput,
        description=DESCRIPTIONS["entity_move"],
        handler=handlers.entity_move,
        mcp=McpExposure("entity_move", "Move an entity"),
        http=HttpExposure("POST", "/v1/entities/{id}/move"),
        cli=CliExposure(("entity", "move")),
        annotations=Annotations(read_only=False, idempotent=True),
        policies=Policies(benchmark="required"),
        log_operation="move_entity",
    ),
    Capability(
        name="graph.entity_update",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.field("scope"),
        input=UpdateInput,
        output=UpdateOutput,
        description=DESCRIPTIONS["entity_update"],
        handler=handlers.entity_update,
        mcp=McpExposure("entity_update", "Rename an entity or change its aliases"),
        http=HttpExposure("PATCH", "/v1/entities/{id}"),
        cli=CliExposure(("entity", "update")),
        annotations=_WRITE,
        log_operation="update_entity",
    ),
    Capability(
        name="graph.entity_tree",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=TreeInput,
        output=TreeOutput,
        description=DESCRIPTIONS["entity_tree"],
        handler=handlers.entity_tree,
        mcp=McpExposure("entity_tree", "Browse the entity tree"),
        http=HttpExposure("GET", "/v1/entities/{id}/tree"),
        cli=CliExposure(("entity", "tree")),
        annotations=_READ,
        policies=Policies(benchmark="required"),
        log_operation="list_structure",
    ),
    Capability(
        name="graph.scope_tree",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=ScopeTreeInput,
        output=TreeOutput,
        description=(
            "Show the top level of a scope's entity tree: at most depth 3, 50 per page, every "
            "node with its children and hidden children. Expand a node with entity_tree."
        ),
        handler=handlers.scope_tree,
        http=HttpExposure("GET", "/v1/scopes/{scope}/tree"),
        annotations=_READ,
        log_operation="list_structure",
    ),
    Capability(
        name="graph.entity_path",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=PathInput,
        output=PathOutput,
        description=DESCRIPTIONS["entity_path"],
        handler=handlers.entity_path,
        mcp=McpExposure("entity_path", "Show where an entity sits"),
        http=HttpExposure("GET", "/v1/entities/{id}"),
        cli=CliExposure(("entity", "path")),
        annotations=_READ,
        policies=Policies(benchmark="required"),
        log_operation="read_entity",
    ),
    Capability(
        name="graph.link_propose",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.field("scope"),
        input=LinkProposeInput,
        output=LinkProposeOutput,
        description=DESCRIPTIONS["link_propose"],
        handler=handlers.link_propose,
        mcp=McpExposure("link_propose", "Propose a link"),
        http=HttpExposure("POST", "/v1/links"),
        cli=CliExposure(("link", "propose")),
        annotations=Annotations(read_only=False, idempotent=True),
        log_operation="propose_link",
    ),
    Capability(
        name="graph.link_list",
        kind="query",
        right=Right.READ,
        tenancy=Tenancy.field("scope"),
        input=LinkListInput,
        output=LinkListOutput,
        description=DESCRIPTIONS["link_list"],
        handler=handlers.link_list,
        mcp=McpExposure("link_list", "List an item's links"),
        http=HttpExposure("GET", "/v1/links"),
        cli=CliExposure(("link", "list")),
        annotations=_READ,
        log_operation="list_links",
    ),
]
