"""The `graph` section of groundnote.json (seed 000 §7)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

__all__ = ["DEFAULT_ENTITY_TYPES", "GraphConfig"]

DEFAULT_ENTITY_TYPES = [
    "organisation",
    "department",
    "project",
    "customer",
    "object",
    "person",
    "case",
    "topic",
]

EntityType = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{1,29}$")]


class GraphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity_types: list[EntityType] = Field(
        default_factory=lambda: list(DEFAULT_ENTITY_TYPES),
        min_length=1,
        description="The full list of entity types; extend it by adding.",
    )
    max_depth: int = Field(
        16, ge=2, le=64, description="Levels of the tree, the top level included."
    )
    proposed_min_confidence: float | None = Field(
        None,
        ge=0,
        le=1,
        description="A proposed link counts in bundles from this confidence on; null: only confirmed ones.",
    )

    @field_validator("entity_types")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("entity_types must not repeat a type")
        return value
