"""The project recipe `groundnote-context.yaml`: the project, its collections, its sources."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from groundnote.context.locales import Locale
from groundnote.context.sourcefile import parse_model, read_data, source_error
from groundnote.context.window import Windowed

__all__ = [
    "RECIPE_FILE",
    "Collection",
    "Defaults",
    "Governance",
    "Recipe",
    "VoiceBinding",
    "load_recipe",
]

RECIPE_FILE = "groundnote-context.yaml"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*\Z")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Governance(Windowed):
    """A collection sits at a coordinate (profile, channel) for a half-open window [from, to)."""

    profile: str = Field(min_length=1)
    channel: str = Field(min_length=1)


class Collection(_Strict):
    label: str = Field(min_length=1)
    files: list[str] = Field(min_length=1, description="Globs relative to the project, ** allowed.")
    governance: list[Governance] = Field(default_factory=list)


class Defaults(_Strict):
    terms_source: str = "terms.json"
    memory_source: str = "memory"


class VoiceBinding(_Strict):
    profile: str = Field(min_length=1, description="A profile of voice.yaml / profiles/<name>.")


class Recipe(_Strict):
    project: str
    workspace: str = ""
    stream: str = ""
    source_locale: Locale = "en"
    collections: list[Collection] = Field(default_factory=list)
    defaults: Defaults = Field(default_factory=Defaults)
    voice: VoiceBinding | None = None

    @field_validator("project")
    @classmethod
    def _project_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("use lower-case letters, digits, '.', '_' and '-' (e.g. docs-site)")
        return value

    @field_validator("collections")
    @classmethod
    def _unique_labels(cls, value: list[Collection]) -> list[Collection]:
        labels = [c.label for c in value]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise ValueError(f"collection labels must be unique; repeated: {', '.join(twice)}")
        return value


def load_recipe(project_dir: Path) -> Recipe:
    """The recipe of a project directory; a missing or bad recipe names the file and the key."""
    file = project_dir / RECIPE_FILE
    if not file.is_file():
        raise source_error(
            file, "", f"no {RECIPE_FILE} here; a content project starts with this recipe"
        )
    data = read_data(file)
    if not isinstance(data, dict):
        raise source_error(file, "", "the recipe must be a mapping with at least `project:`")
    return parse_model(Recipe, data, file)
