"""JSON Schemas of capabilities as MCP shows them, derived from the input and output models."""

from __future__ import annotations

from typing import Any

from groundnote.capabilities import Capability
from groundnote.config import Config

__all__ = ["input_schema", "output_schema"]


def input_schema(cap: Capability[Any, Any], config: Config) -> dict[str, Any]:
    schema: dict[str, Any] = cap.input.model_json_schema()
    if cap.adapt_schema is not None:
        schema = cap.adapt_schema(schema, config)
    return schema


def output_schema(cap: Capability[Any, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = cap.output.model_json_schema(mode="serialization")
    return schema
