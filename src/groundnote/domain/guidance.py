"""The guidance envelope of seed 000 §8: where a thing sits and what to do next."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Guidance", "Next", "PathItem", "StrictModel"]


class StrictModel(BaseModel):
    """Base of every capability input: an unknown key is refused, never ignored."""

    model_config = ConfigDict(extra="forbid")


class Next(BaseModel):
    tool: str = Field(description="A tool or prompt name.")
    arguments: dict[str, Any] | None = Field(
        None, description="The arguments of the suggested call, where they are known."
    )
    why: str


class PathItem(BaseModel):
    id: str
    name: str
    type: str


class Guidance(BaseModel):
    path: list[PathItem] = Field(default_factory=list)
    next: list[Next] = Field(default_factory=list, max_length=3)
