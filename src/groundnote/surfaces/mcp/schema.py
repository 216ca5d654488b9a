"""JSON Schemas of capabilities as MCP shows them, derived from the input and output models,
in a compact form: `tools/list` must fit a host's budget for all tools together (DESIGN §13:
≤ 40,000 characters for a grant with every right).

* Input schemas keep what a caller needs (types, descriptions, defaults, limits, enums, shared
  `$defs`) and drop what pydantic adds for people reading a schema: a `title` on every model
  and field, `default: null`, and `anyOf [X, null]` where `type: [X, null]` says the same.
  Id and name patterns are left to the server (2,500 characters in all): the descriptions say
  each form, and a value that does not match is refused naming the key and the form.
* Output schemas outline the answer: its fields with their types, one level deep, which is
  what a client validates structured content against and what an agent needs to find a field.
  The full output models are on the reference pages (docs/capabilities/).
"""

from __future__ import annotations

from typing import Any

from groundnote.capabilities import Capability
from groundnote.config import Config

__all__ = ["input_schema", "output_schema"]

# Keys whose value maps names to schemas: the names are data, not schema keywords.
_NAMED = ("properties", "$defs")
_NULL = {"type": "null"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf [{"type": T, …}, {"type": "null"}]` → `{"type": [T, "null"], …}`."""
    variants = schema.get("anyOf")
    if not isinstance(variants, list) or len(variants) != 2 or _NULL not in variants:
        return schema
    (other,) = [v for v in variants if v != _NULL]
    if not isinstance(other.get("type"), str) or "$ref" in other:
        return schema
    merged = {k: v for k, v in schema.items() if k != "anyOf"}
    merged.update(other)
    merged["type"] = [other["type"], "null"]
    return merged


def _compact(node: Any, *, names: bool = False) -> Any:
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {name: _compact(schema) for name, schema in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if key == "pattern" and isinstance(value, str):
            continue
        if key == "discriminator":  # OpenAPI's, not JSON Schema's: oneOf says it already
            continue
        out[key] = _compact(value, names=key in _NAMED)
    return _nullable(out)


def _outline(schema: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = schema.get("$defs", {})

    def resolved(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def kind(node: dict[str, Any]) -> dict[str, Any]:
        """A field's type without its inside; an alternative of several types lists them."""
        node = resolved(node)
        if "anyOf" in node:
            types = [resolved(v).get("type") for v in node["anyOf"]]
            if all(isinstance(t, str) for t in types):
                return {"type": list(dict.fromkeys(types))}
            return {}  # a union of shapes: any value (the server's own model checked it)
        return {"type": node["type"]} if "type" in node else {}

    top = resolved(schema)
    fields = top.get("properties", {})
    return {"type": "object", "properties": {name: kind(field) for name, field in fields.items()}}


def input_schema(cap: Capability[Any, Any], config: Config) -> dict[str, Any]:
    schema: dict[str, Any] = cap.input.model_json_schema()
    if cap.adapt_schema is not None:
        schema = cap.adapt_schema(schema, config)
    compact: dict[str, Any] = _compact(schema)
    return compact


def output_schema(cap: Capability[Any, Any]) -> dict[str, Any]:
    return _outline(cap.output.model_json_schema(mode="serialization"))
