"""The `knowledge` section of groundnote.json: where a bound checkout keeps what (DESIGN §10)."""

from __future__ import annotations

from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["KnowledgeConfig"]


def _relative(value: str) -> str:
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value!r} must be a path inside the checkout, e.g. '.ai/repo/knowledge'")
    return str(path)


class KnowledgeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    root: str = Field(
        ".ai/repo/knowledge",
        description="Folder of the records, relative to the checkout; holds candidates/ and curated/.",
    )
    ledger: str = Field(
        ".ai/repo/ledger",
        description=(
            "The ledger that vouches for sessions, tasks and decisions: one JSONL file, or a "
            "folder of *.jsonl files; one object per line with `kind` and `id`."
        ),
    )
    sessions: str = Field(
        ".ai/repo/sessions",
        description="Folder of tracked session records; `<id>.<ext>` vouches for `session:<id>`.",
    )
    adr_dirs: list[str] = Field(
        default_factory=lambda: ["docs/adr", "doc/adr", "adr", "docs/decisions"],
        description="Folders of architecture decision records; `adr:<n>` names `<n>-title.md`.",
    )
    issue_dirs: list[str] = Field(
        default_factory=lambda: [".ai/repo/issues", "docs/issues"],
        description="Folders of issue files; `issue:<n>` names `<n>.md` or `<n>-title.md`.",
    )
    test_patterns: list[str] = Field(
        default_factory=lambda: [
            "tests/*",
            "test/*",
            "*/tests/*",
            "*/test/*",
            "test_*",
            "*/test_*",
            "*_test.*",
            "*.test.*",
            "*_spec.*",
            "*.spec.*",
        ],
        description="Glob patterns (fnmatch) of the files a `test:` reference may name.",
    )

    @field_validator("root", "ledger", "sessions")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _relative(value)

    @field_validator("adr_dirs", "issue_dirs")
    @classmethod
    def _all_inside(cls, value: list[str]) -> list[str]:
        return [_relative(v) for v in value]
