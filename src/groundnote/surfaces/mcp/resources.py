"""MCP resources: the scope tree, entities, rules and knowledge records as `groundnote://` URIs.

A resource is a read of a capability that is a tool already (entity_tree, entity_path,
read_rule, majordomus_knowledge_record), made through the registry on the `mcp` channel with
the caller's grant, so a resource shows exactly what the tool would: nothing of a scope the
grant cannot read, and the same refusal for a foreign scope as for a missing one.

    groundnote://{scope}/tree{?page}            the top level, 50 entities per page
    groundnote://{scope}/tree/{id}{?page}       the children of one entity
    groundnote://{scope}/entities/{id}          one entity with its path and versions
    groundnote://{scope}/rules/{id}             one rule with its decisions
    groundnote://{scope}/knowledge/{id}         one knowledge record, references resolved

`resources/list` names the tree of every scope the grant reads and its top-level entities,
`PAGE` at a time (the cursor is the offset).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import mcp_types as types
from mcp.shared.exceptions import MCPError

from groundnote.auth import Principal
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime

__all__ = ["PAGE", "TEMPLATES", "list_resources", "read_resource"]

PAGE = 50
JSON = "application/json"

# (URI template, path pattern, capability, title, description)
_ROUTES: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "groundnote://{scope}/tree{?page}",
        r"(?P<scope>[^/]+)/tree",
        "graph.entity_tree",
        "Entity tree of a scope",
        "The top level of a scope's entity tree, 50 per page; expand a node by its id.",
    ),
    (
        "groundnote://{scope}/tree/{id}{?page}",
        r"(?P<scope>[^/]+)/tree/(?P<id>[^/]+)",
        "graph.entity_tree",
        "Children of an entity",
        "The entities directly below one entity, 50 per page.",
    ),
    (
        "groundnote://{scope}/entities/{id}",
        r"(?P<scope>[^/]+)/entities/(?P<id>[^/]+)",
        "graph.entity_path",
        "An entity",
        "One entity with its full path, status and versions.",
    ),
    (
        "groundnote://{scope}/rules/{id}",
        r"(?P<scope>[^/]+)/rules/(?P<id>[^/]+)",
        "core.read_rule",
        "A rule",
        "One rule with its evidence, validity, status and decisions.",
    ),
    (
        "groundnote://{scope}/knowledge/{id}",
        r"(?P<scope>[^/]+)/knowledge/(?P<id>[^/]+)",
        "knowledge_base.record",
        "A knowledge record",
        "One knowledge record with every reference it names resolved.",
    ),
)

TEMPLATES = [
    types.ResourceTemplate(
        uri_template=template, name=name, title=title, description=text, mime_type=JSON
    )
    for template, _, name, title, text in _ROUTES
]

Caller = Callable[[], Principal | None]


def _refusal(exc: GroundnoteError) -> MCPError:
    # A resource read has no error result; the body travels as the error's data.
    return MCPError(types.INVALID_PARAMS, exc.message, data=exc.body())


def _invoke(runtime: Runtime, name: str, raw: dict[str, Any], caller: Caller) -> dict[str, Any]:
    try:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=caller(), channel="mcp")
    except GroundnoteError as exc:
        raise _refusal(exc) from exc
    data: dict[str, Any] = out.model_dump(mode="json")
    return data


def read_resource(runtime: Runtime, uri: str, caller: Caller) -> types.ReadResourceResult:
    parts = urlsplit(uri)
    path = parts.netloc + parts.path
    for _, pattern, name, _, _ in _ROUTES:
        found = re.fullmatch(pattern, path)
        if parts.scheme != "groundnote" or found is None:
            continue
        raw: dict[str, Any] = dict(found.groupdict())
        page = parse_qs(parts.query).get("page")
        if page and name == "graph.entity_tree":
            raw["page"] = page[0]
        data = _invoke(runtime, name, raw, caller)
        text = json.dumps(data, ensure_ascii=False)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=JSON, text=text)]
        )
    raise MCPError(
        types.INVALID_PARAMS,
        f"There is no resource {uri!r}. The forms are: "
        + ", ".join(template for template, *_ in _ROUTES)
        + "; resources/templates/list lists them.",
    )


def _all_resources(runtime: Runtime, caller: Caller) -> list[types.Resource]:
    found = []
    scopes = _invoke(runtime, "core.list_scopes", {}, caller)["scopes"]
    for entry in scopes:
        scope = entry["name"]
        found.append(
            types.Resource(
                uri=f"groundnote://{scope}/tree",
                name=f"{scope}/tree",
                title=f"Entity tree of {scope}",
                mime_type=JSON,
            )
        )
        tree = _invoke(runtime, "graph.entity_tree", {"scope": scope}, caller)
        for page in range(2, tree["pages"] + 1):
            more = _invoke(runtime, "graph.entity_tree", {"scope": scope, "page": page}, caller)
            tree["nodes"].extend(more["nodes"])
        for node in tree["nodes"]:
            found.append(
                types.Resource(
                    uri=f"groundnote://{scope}/entities/{node['id']}",
                    name=f"{scope}/entities/{node['id']}",
                    title=f"{node['name']} ({node['type']})",
                    mime_type=JSON,
                )
            )
    return found


def list_resources(
    runtime: Runtime, cursor: str | None, caller: Caller
) -> types.ListResourcesResult:
    start = int(cursor) if cursor and cursor.isdigit() else 0
    every = _all_resources(runtime, caller)
    page = every[start : start + PAGE]
    after = start + PAGE
    return types.ListResourcesResult(
        resources=page, next_cursor=str(after) if after < len(every) else None
    )
