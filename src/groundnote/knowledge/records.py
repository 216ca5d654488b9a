"""Knowledge record files: Markdown with YAML front matter, parsed or reported with a line.

A record is `<root>/<candidates|curated>/<id>.md`. The front matter carries the fields of
seed 004's `KnowledgeRecord`; a file that does not is a `Problem` with its path and the line
to look at, so a broken file is shown to the person who can fix it and never silently left
out, and never stops the rest of the index from being built.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

import yaml
from frontmatter.default_handlers import YAMLHandler
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)

__all__ = [
    "RECORD_ID_RE",
    "SOURCE_CLASSES",
    "Problem",
    "Record",
    "Relation",
    "key_line",
    "parse_record",
    "record_source_class",
]

SOURCE_CLASSES = ("candidates", "curated")
# A record id is a file name: no separators, no leading dot.
RECORD_ID_RE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
_RECORD_ID = re.compile(RECORD_ID_RE)
_HANDLER = YAMLHandler()
# libyaml's loader is ten times faster than the pure-Python one: it decides the cold index time.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

RelationType = Literal[
    "relates_to", "depends_on", "documents", "supports", "contradicts", "supersedes", "derived_from"
]
Reference = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


@dataclass(frozen=True)
class Problem:
    """A file that could not be read as meant: where, and what to fix."""

    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Relation:
    type: str
    target: str


@dataclass(frozen=True)
class Record:
    id: str
    path: str
    source_class: str
    klass: str
    status: str
    epistemics: str
    origin: str
    date: str
    title: str
    superseded_by: str | None
    derived_from: tuple[str, ...] = ()
    relations: tuple[Relation, ...] = field(default_factory=tuple)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _Provenance(_Strict):
    origin: Literal["authored", "extracted"]
    derived_from: list[Reference] = Field(default_factory=list)


class _Relation(_Strict):
    type: RelationType
    target: Reference


class _Front(_Strict):
    id: str
    klass: Literal["fact", "convention", "constraint", "memory", "lesson"] = Field(alias="class")
    status: Literal["candidate", "verified", "superseded"]
    epistemics: Literal["observed", "inferred", "decided"]
    date: str
    title: Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]
    provenance: _Provenance | None = None
    relations: list[_Relation] = Field(default_factory=list)
    superseded_by: str | None = None

    @field_validator("date", mode="before")
    @classmethod
    def _day(cls, value: Any) -> str:
        # YAML reads an unquoted 2026-09-12 as a date and 2026-09-12T10:00 as an instant.
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value.isoformat()
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            try:
                return dt.date.fromisoformat(value).isoformat()
            except ValueError:
                pass
        raise ValueError("must be a day written YYYY-MM-DD, e.g. 2026-09-12")


def record_source_class(path: str, root: str) -> str | None:
    """`candidates` or `curated` for a record file under `root`, else None."""
    parts = PurePosixPath(path).parts
    root_parts = PurePosixPath(root).parts
    if len(parts) != len(root_parts) + 2 or parts[: len(root_parts)] != root_parts:
        return None
    source_class = parts[len(root_parts)]
    if source_class not in SOURCE_CLASSES or not parts[-1].endswith(".md"):
        return None
    return source_class


def key_line(text: str, key: str) -> int:
    """The file line of a top-level front matter key, or 1 (the opening `---`)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    for n, line in enumerate(text.split("\n")[1:], start=2):
        if line.rstrip() == "---":
            break
        if pattern.match(line):
            return n
    return 1


def parse_record(path: str, text: str, source_class: str) -> Record | list[Problem]:
    """Parse one record file; every problem found is returned with its line."""
    stem = PurePosixPath(path).stem
    if not _RECORD_ID.fullmatch(stem):
        return [
            Problem(
                path,
                1,
                f"the file name {stem!r} is not a record id (letters, digits, '.', '_', '-')",
            )
        ]
    if not _HANDLER.detect(text):
        return [Problem(path, 1, "no YAML front matter: the file must start with a line `---`")]
    try:
        front_text, _ = _HANDLER.split(text)
    except ValueError:
        return [Problem(path, 1, "the front matter is not closed by a line `---`")]
    try:
        data = yaml.load(front_text, Loader=_LOADER)  # a safe loader: no arbitrary objects
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        return [Problem(path, max(line, 1), f"the front matter is not valid YAML: {exc.problem}")]
    except (yaml.YAMLError, ValueError) as exc:
        # PyYAML raises a bare ValueError for an impossible date such as 2026-13-45.
        return [Problem(path, 1, f"the front matter is not valid YAML: {exc}")]
    if not isinstance(data, dict):
        return [
            Problem(path, 1, "the front matter must be a mapping of keys (id, class, status, …)")
        ]
    try:
        front = _Front.model_validate(data)
    except ValidationError as exc:
        problems = []
        for item in exc.errors():
            loc = [str(p) for p in item["loc"]]
            key = loc[0] if loc else "(front matter)"
            what = "unknown key, not allowed" if item["type"] == "extra_forbidden" else item["msg"]
            problems.append(Problem(path, key_line(text, key), f"{'.'.join(loc)}: {what}"))
        return problems
    problems = []
    if front.id != stem:
        problems.append(
            Problem(
                path, key_line(text, "id"), f"id {front.id!r} differs from the file name {stem!r}"
            )
        )
    if (front.status == "superseded") != (front.superseded_by is not None):
        problems.append(
            Problem(
                path,
                key_line(text, "superseded_by" if front.superseded_by else "status"),
                "superseded_by is given exactly when the status is superseded",
            )
        )
    if problems:
        return problems
    return Record(
        id=front.id,
        path=path,
        source_class=source_class,
        klass=front.klass,
        status=front.status,
        epistemics=front.epistemics,
        origin=front.provenance.origin if front.provenance else "",
        date=front.date,
        title=front.title,
        superseded_by=front.superseded_by,
        derived_from=tuple(front.provenance.derived_from) if front.provenance else (),
        relations=tuple(Relation(r.type, r.target) for r in front.relations),
    )
