"""The content-memory seeds and the voice profiles, the last two committed sources.

`<memory_source>/*.memory.json` holds `{"entries": [{"source": …, "variants": {locale: …}}]}`;
`voice.yaml` is the project's default profile and `profiles/<name>/voice.yaml` each named one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from groundnote.context.blocks import content_key, normalise
from groundnote.context.locales import canonical
from groundnote.context.sourcefile import parse_model, read_data, source_error

__all__ = [
    "DEFAULT_PROFILE",
    "MemoryEntry",
    "MemorySeed",
    "VoiceProfile",
    "load_memory",
    "load_voices",
]

DEFAULT_PROFILE = "default"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MemorySeedEntry(_Strict):
    source: str = Field(min_length=1)
    variants: dict[str, str] = Field(default_factory=dict)


class MemorySeed(_Strict):
    entries: list[MemorySeedEntry] = Field(default_factory=list)


@dataclass(frozen=True)
class MemoryEntry:
    source_key: str
    source_text: str
    seed: str  # the seed file, relative to the project
    variants: tuple[tuple[str, str], ...]  # (canonical locale, text), sorted


class VoiceProfile(_Strict):
    """A voice profile: how a text should sound, and what it avoids."""

    tone: str = ""
    rules: list[str] = Field(default_factory=list)
    avoid: list[str] = Field(default_factory=list)


def load_memory(project_dir: Path, folder_name: str) -> list[MemoryEntry]:
    """Every seed entry; the same source in two seeds is refused, naming both files."""
    folder = project_dir / folder_name
    found: dict[str, MemoryEntry] = {}
    for file in sorted(folder.glob("*.memory.json")) if folder.is_dir() else []:
        seed = parse_model(MemorySeed, read_data(file), file)
        rel = file.relative_to(project_dir).as_posix()
        for index, entry in enumerate(seed.entries):
            variants: dict[str, str] = {}
            for locale, text in entry.variants.items():
                try:
                    variants[canonical(locale)] = normalise(text)
                except ValueError as exc:
                    raise source_error(
                        file, f"entries.{index}.variants.{locale}", str(exc)
                    ) from None
            key = content_key(entry.source)
            if key in found:
                raise source_error(
                    file,
                    f"entries.{index}.source",
                    f"this source text is already seeded by {found[key].seed}",
                )
            found[key] = MemoryEntry(
                key, normalise(entry.source), rel, tuple(sorted(variants.items()))
            )
    return [found[k] for k in sorted(found)]


def load_voices(project_dir: Path) -> dict[str, VoiceProfile]:
    """Profile name → profile: `voice.yaml` is "default", `profiles/<name>/voice.yaml` <name>."""
    files: list[tuple[str, Path]] = []
    if (project_dir / "voice.yaml").is_file():
        files.append((DEFAULT_PROFILE, project_dir / "voice.yaml"))
    folder = project_dir / "profiles"
    if folder.is_dir():
        files.extend((f.parent.name, f) for f in sorted(folder.glob("*/voice.yaml")))
    profiles: dict[str, VoiceProfile] = {}
    for name, file in files:
        data = read_data(file)
        profiles[name] = parse_model(VoiceProfile, data if data is not None else {}, file)
    return profiles
