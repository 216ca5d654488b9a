"""The input and the answer of every core operation. The shapes a domain module builds and
several answers share stay with it: a rule (rules.py), a bundle (bundles.py), a source
(sources.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from groundnote.core.bundles import (
    Bundle,
    CompactBundle,
    Related,
)
from groundnote.core.rules import (
    EVIDENCE_REF_RE,
    Decision,
    RuleOut,
    RuleStatus,
)
from groundnote.core.sources import MailIn, MeetingIn, NoteIn
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import Day, EntityId, IdempotencyKey, RuleId, ScopeName
from groundnote.domain.text import Prose

__all__ = [
    "EvidenceIn",
    "EvidenceRef",
    "ExportInput",
    "ExportOutput",
    "FeedbackInput",
    "FeedbackOutput",
    "ImportInput",
    "ImportOutput",
    "ListRulesInput",
    "ListScopesInput",
    "ListScopesOutput",
    "ProposeRuleInput",
    "ProvenanceAttachment",
    "ProvenanceOutput",
    "ProvenanceSource",
    "ReadRuleInput",
    "RetractInput",
    "RuleList",
    "ScopeEntry",
    "ScopePageInput",
    "ScopeStatus",
    "SearchInput",
    "SearchOutput",
    "StatusInput",
    "StatusOutput",
    "StoreSourceInput",
    "SubsystemVersion",
]


class ListScopesInput(StrictModel):
    pass


class ScopeEntry(BaseModel):
    name: str
    right: str = Field(description="Your right on it: read, propose or decide.")
    approval_mode: str = Field(
        description="person: proposals wait for a person; auto: adopted by policy."
    )


class ListScopesOutput(BaseModel):
    scopes: list[ScopeEntry]
    next: list[Next] = Field(default_factory=list, max_length=3)


class StatusInput(StrictModel):
    scope: ScopeName | None = Field(
        None, description="One scope; omitted: every scope you may read."
    )


class SubsystemVersion(BaseModel):
    subsystem: str
    version: int = Field(description="The highest migration applied.")
    migrations: int = Field(description="How many migrations the ledger holds.")


class ScopeStatus(BaseModel):
    scope: str
    approval_mode: str
    pending: dict[str, int] = Field(
        description="What waits for a person on the approval page: rules, entities, links."
    )
    schema_versions: list[SubsystemVersion]
    rows: dict[str, int] = Field(description="Rows per table.")
    file_bytes: int


class StatusOutput(BaseModel):
    version: str = Field(description="The Groundnote version answering.")
    scopes: list[ScopeStatus]
    next: list[Next] = Field(default_factory=list, max_length=3)


class SearchInput(StrictModel):
    scope: ScopeName | None = Field(None, description="The scope to search; or give scopes.")
    scopes: list[ScopeName] | None = Field(None, min_length=1, max_length=10)
    query: str = Field(
        min_length=1, max_length=500, description="Words as a person would say them."
    )
    as_of: Day | None = Field(None, description="The day the rules must hold on; default today.")
    entity: EntityId | None = Field(
        None,
        description="Only rules linked to this entity or to an entity above it (one scope only).",
    )
    include_proposed: bool = Field(
        False, description="Also proposed rules, marked proposed: they are not adopted."
    )
    limit: int = Field(10, ge=1, le=50)
    compact: bool | None = Field(
        None, description="Compact form (each related thing once); default on MCP, full elsewhere."
    )

    @model_validator(mode="after")
    def _one_kind_of_scope(self) -> SearchInput:
        if (self.scope is None) == (self.scopes is None):
            raise ValueError("give either scope or scopes")
        if self.entity is not None and len(set(self.scopes or [])) > 1:
            raise ValueError("the entity filter works in one scope: give scope, not several scopes")
        return self


class SearchOutput(BaseModel):
    search_id: str = Field(description="Name it in feedback on a result.")
    as_of: str
    terms: list[str]
    form: str = Field(description="full or compact")
    bundles: list[Bundle] | list[CompactBundle]
    related: dict[str, Related] = Field(
        default_factory=dict, description="Compact form: ref → what it is, once per answer."
    )
    next: list[Next] = Field(default_factory=list, max_length=3)


class ReadRuleInput(StrictModel):
    scope: ScopeName
    id: RuleId


class ListRulesInput(StrictModel):
    scope: ScopeName
    status: RuleStatus | None = None
    valid_on: Day | None = Field(
        None, description="Only rules whose validity window holds this day."
    )
    text: str | None = Field(
        None, min_length=1, max_length=500, description="Words the rule contains."
    )
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=1_000_000_000)


class RuleList(BaseModel):
    rules: list[RuleOut]
    total: int = Field(description="How many rules match, beyond this page too.")
    next: list[Next] = Field(default_factory=list, max_length=3)


class ScopePageInput(StrictModel):
    scope: ScopeName
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=1_000_000_000)


class ProvenanceAttachment(BaseModel):
    ref: str
    filename: str
    media_type: str
    size: int
    sha256: str
    cited: bool = Field(description="The rule's evidence names this attachment.")


class ProvenanceSource(BaseModel):
    ref: str
    kind: str
    title: str
    day: str
    who: list[str] = Field(
        description="Sender and recipients of a mail; participants of a meeting."
    )
    stored_at: str
    stored_by: str
    quote_found: bool = Field(
        description="The evidence quote occurs in its text or a cited attachment."
    )
    attachments: list[ProvenanceAttachment]


class ProvenanceOutput(BaseModel):
    rule: RuleOut
    proposed_at: str
    proposed_by: str
    sources: list[ProvenanceSource]
    decisions: list[Decision]
    next: list[Next] = Field(default_factory=list, max_length=3)


EvidenceRef = Annotated[str, Field(pattern=EVIDENCE_REF_RE, max_length=1100)]


class EvidenceIn(StrictModel):
    quote: str = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="The words of the source the rule rests on.",
    )
    refs: list[EvidenceRef] = Field(
        min_length=1,
        max_length=20,
        description="Stored sources or attachments: source/<id>, attachment/<id>#<n> (or the bare ids).",
    )


class ProposeRuleInput(StrictModel):
    scope: ScopeName
    statement: Prose = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="The rule in one or a few plain sentences.",
    )
    evidence: EvidenceIn
    valid_from: Day | None = Field(None, description="First day it holds; default today.")
    valid_to: Day | None = Field(None, description="Last day it holds; omitted: open-ended.")
    supersedes: RuleId | None = Field(None, description="The adopted rule this one replaces.")
    idempotency_key: IdempotencyKey | None = Field(
        None,
        description=(
            "Any unique text (e.g. a UUID) to make a retry safe: a call repeated with the same "
            "key and input gets the first answer and writes nothing again."
        ),
    )


class RetractInput(StrictModel):
    scope: ScopeName
    id: RuleId
    reason: Prose = Field(
        min_length=1,
        pattern=r"\S",
        max_length=1000,
        description="Why, in the person's words: who asked and when.",
    )


class StoreSourceInput(StrictModel):
    scope: ScopeName
    source: Annotated[MailIn | MeetingIn | NoteIn, Field(discriminator="kind")]


class FeedbackInput(StrictModel):
    scope: ScopeName
    search_id: str = Field(
        min_length=1, max_length=64, description="The search_id of a search answer."
    )
    ref: str = Field(min_length=1, max_length=1100, description="A ref that search returned.")
    verdict: Literal["useful", "not-useful", "wrong"] = Field(
        description="wrong: the result is false or outdated, not merely off-topic."
    )


class FeedbackOutput(BaseModel):
    id: int
    search_id: str
    ref: str
    verdict: str
    next: list[Next] = Field(default_factory=list, max_length=3)


class ExportInput(StrictModel):
    scope: ScopeName


class ExportOutput(BaseModel):
    scope: str
    lines: int
    jsonl: str = Field(
        description="The export (docs/export.md): a header line, then one JSON line per row."
    )


class ImportInput(StrictModel):
    scope: ScopeName = Field(description="An empty scope to import into.")
    jsonl: str = Field(min_length=1, description="The text of an export.")


class ImportOutput(BaseModel):
    scope: str
    imported: dict[str, int] = Field(
        description="Rows written per table; `skipped`: rows left out (call keys of another scope)."
    )
    next: list[Next] = Field(default_factory=list, max_length=3)
