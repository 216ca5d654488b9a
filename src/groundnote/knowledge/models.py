"""Inputs and outputs of the knowledge capabilities; `knowledge_base.record`'s are seed 004's."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import ScopeName

__all__ = [
    "CandidateEntry",
    "CandidatesInput",
    "CandidatesOutput",
    "Dangling",
    "FileProblem",
    "KnowledgeRecord",
    "KnowledgeRecordInput",
    "ReferenceResolution",
    "ResolvedReference",
    "ResolvedRelation",
    "StatusInput",
    "StatusOutput",
    "ValidateInput",
    "ValidateOutput",
]

SCOPE_DESCRIPTION = (
    "The scope whose bound checkout holds the record. Omitted: the one scope your grant may "
    "read that has a repository bound (refused, with the choices, when there are several)."
)

_OUTCOMES = {
    "object": "An object of the index: the `target` is its URI, or its path for a file.",
    "external": (
        "Vouched for by the ledger, the task store or git: a session, a task, a decision, a commit."
    ),
    "historical": (
        "A `file:` or `test:` the tree no longer holds and git history does: cited before the "
        "file was deleted, or pinned as `file:<path>@<commit>`. The `target` is the blob that "
        "answers, `<commit>:<path>`, which `git show` reads."
    ),
    "missing": (
        "Nothing answers to it. A dangling reference is the integrity validator's finding."
    ),
}
ReferenceResolution = Annotated[
    Literal["object", "external", "historical", "missing"],
    WithJsonSchema(
        {
            "title": "ReferenceResolution",
            "description": (
                "How a typed reference resolved: a reference names an object of the index, or "
                "something only the ledger and git can vouch for, or a file the tree no longer "
                "holds and git history does, or nothing. `external` is not a weaker `object`; "
                "it says which reader answered."
            ),
            "oneOf": [
                {"const": k, "description": v, "type": "string"} for k, v in _OUTCOMES.items()
            ],
        }
    ),
]
RESOLUTION_DESCRIPTION = "How it resolved."


def _absent(value: object) -> bool:
    """`reason` is left out, not null, when a reference resolved: its schema type is string."""
    return value is None


class KnowledgeRecordInput(StrictModel):
    """Which knowledge record: the input of `knowledge_base.record`. The id is the file name
    and the identity the index keys the record by, so one string names it on every surface."""

    id: str = Field(
        description="The record id, as the file name and `majordomus://knowledge/<id>` carry it."
    )
    scope: ScopeName | SkipJsonSchema[None] = Field(None, description=SCOPE_DESCRIPTION)


class ResolvedReference(BaseModel):
    """One `derived_from` reference of a record, with how it resolved and against what."""

    reference: str = Field(description="The reference as written: `<prefix>:<value>`.")
    resolution: ReferenceResolution = Field(description=RESOLUTION_DESCRIPTION)
    target: str | None = Field(
        None,
        description=(
            "What it resolved to: a URI for an object, a path for a file, the reader that "
            "vouched for an external reference. Absent when nothing did."
        ),
    )
    reason: str | SkipJsonSchema[None] = Field(
        None, description="Why it did not resolve, when it did not.", exclude_if=_absent
    )


class ResolvedRelation(BaseModel):
    """One `relations` entry, resolved the same way."""

    relation_type: str = Field(
        description=(
            "`relates_to`, `depends_on`, `documents`, `supports`, `contradicts`, `supersedes` "
            "or `derived_from`."
        )
    )
    reference: str = Field(description="The target as written.")
    resolution: ReferenceResolution = Field(description=RESOLUTION_DESCRIPTION)
    target: str | None = Field(None, description="What it resolved to, when something did.")
    reason: str | SkipJsonSchema[None] = Field(
        None, description="Why it did not resolve, when it did not.", exclude_if=_absent
    )


class KnowledgeRecord(BaseModel):
    """One knowledge record, with every reference it names resolved.

    `objects.get` already serves the same file as metadata and content. What this adds is
    the resolution: which of the record's references answer, through which reader, and which
    dangle — the question a reviewer asks before promoting a candidate, and the question the
    integrity validator asks of every record."""

    id: str = Field(description="The record id.")
    uri: str = Field(description="`majordomus://knowledge/<id>`.")
    path: str = Field(description="Repository-relative path.")
    source_class: str = Field(
        description="The source class that discovered it: `candidates` or `curated`."
    )
    class_: str = Field(
        alias="class", description="`fact`, `convention`, `constraint`, `memory` or `lesson`."
    )
    status: str = Field(description="`candidate`, `verified` or `superseded`.")
    epistemics: str = Field(description="`observed`, `inferred` or `decided`.")
    origin: str = Field(
        "", description="`authored` or `extracted`; empty when the record carries no provenance."
    )
    date: str = Field(description="The day the record reached its status.")
    title: str = Field(description="The assertion.")
    derived_from: list[ResolvedReference] = Field(
        default_factory=list,
        description="Every `provenance.derived_from` reference, resolved, in the record's order.",
    )
    relations: list[ResolvedRelation] = Field(
        default_factory=list,
        description="Every `relations` entry, resolved, in the record's order.",
    )
    superseded_by: str | None = Field(
        None, description="The record that replaced this one, when the status is `superseded`."
    )
    resolved: bool = Field(
        False,
        description="True when every reference above resolved. The one bit a reviewer reads first.",
    )
    content: str = Field(description="The whole file, front matter and body.")

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


class CandidatesInput(StrictModel):
    scope: ScopeName | SkipJsonSchema[None] = Field(None, description=SCOPE_DESCRIPTION)
    limit: int = Field(50, ge=1, le=1000, description="At most this many, newest first.")


class CandidateEntry(BaseModel):
    id: str
    uri: str
    path: str = Field(description="Repository-relative path.")
    source_class: str = Field(description="`candidates` or `curated`.")
    class_: str = Field(alias="class", description="`fact`, `convention`, `constraint`, …")
    epistemics: str
    date: str
    title: str = Field(description="The assertion.")
    resolved: bool = Field(description="True when every reference of the record resolved.")
    dangling: int = Field(description="How many of its references resolve to nothing.")

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


class CandidatesOutput(BaseModel):
    total: int = Field(description="Candidates awaiting review in the checkout.")
    candidates: list[CandidateEntry]
    next: list[Next] = Field(default_factory=list, max_length=3)


class StatusInput(StrictModel):
    scope: ScopeName | SkipJsonSchema[None] = Field(None, description=SCOPE_DESCRIPTION)


class StatusOutput(BaseModel):
    repo: str = Field(description="The checkout the scope is bound to.")
    indexed: bool = Field(description="False: the index was never built for this checkout.")
    up_to_date: bool = Field(description="True when nothing below differs from the index.")
    head: str | None = Field(description="The commit HEAD names now.")
    head_indexed: str | None = Field(description="The commit HEAD named when the index was built.")
    history_moved: bool = Field(description="HEAD or a ref moved since the index was built.")
    changed: list[str] = Field(description="Record and ledger files whose content changed.")
    new: list[str] = Field(description="Record and ledger files the index has not seen.")
    gone: list[str] = Field(description="Indexed record and ledger files no longer in the tree.")
    unchanged: int = Field(description="Record and ledger files as indexed.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class ValidateInput(StrictModel):
    scope: ScopeName | SkipJsonSchema[None] = Field(None, description=SCOPE_DESCRIPTION)


class FileProblem(BaseModel):
    path: str = Field(description="Repository-relative path of the file.")
    line: int = Field(description="The line to look at (1 = the top of the file).")
    message: str = Field(description="What is wrong and what it should be.")


class Dangling(BaseModel):
    id: str = Field(description="The record that names it.")
    path: str = Field(description="Repository-relative path of the record.")
    field: Literal["derived_from", "relations", "superseded_by"]
    reference: str = Field(description="The reference as written.")
    reason: str = Field(description="Why nothing answers to it.")


class ValidateOutput(BaseModel):
    ok: bool = Field(description="True when every record parsed and every reference resolved.")
    records: int = Field(description="Records checked.")
    resolved: int = Field(description="Records whose every reference resolved.")
    dangling: list[Dangling] = Field(description="Every reference that resolves to nothing.")
    problems: list[FileProblem] = Field(
        description="Every record or ledger file, or line, that could not be read as meant."
    )
    next: list[Next] = Field(default_factory=list, max_length=3)
