"""The committed sources besides the recipe: the terms source and the unit-state shards.

They are the truth the project store is projected from (seed 002 "The committed sources are
the truth"); each loader reports a bad file by its path and the offending key or line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from groundnote.context.locales import Locale
from groundnote.context.sourcefile import parse_model, read_data, source_error
from groundnote.context.window import Instant, Windowed

__all__ = [
    "STATE_DIR",
    "Concept",
    "StateRecord",
    "Term",
    "TermStatus",
    "TermsSource",
    "load_state",
    "load_terms",
    "shard_name",
]

STATE_DIR = "state"
TermStatus = Literal["preferred", "admitted", "deprecated", "forbidden"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Term(Windowed):
    """One spelling of a concept in one locale, with its standing and where and when it holds."""

    text: str = Field(min_length=1)
    locale: Locale
    status: TermStatus
    market: str | None = Field(None, description="The market the entry applies to; none: all.")


class Concept(_Strict):
    id: str = Field(min_length=1, pattern=r"^[^\s/:]+$")
    terms: list[Term] = Field(min_length=1)


class TermsSource(_Strict):
    concepts: list[Concept] = Field(default_factory=list)

    @field_validator("concepts")
    @classmethod
    def _unique(cls, value: list[Concept]) -> list[Concept]:
        ids = [c.id for c in value]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"concept ids must be unique; repeated: {', '.join(twice)}")
        return value


def load_terms(file: Path) -> TermsSource:
    """The terms source; an absent file is an empty vocabulary, not an error."""
    if not file.exists():
        return TermsSource()
    return parse_model(TermsSource, read_data(file), file)


class StateRecord(_Strict):
    """A unit's decision in one document and locale variant, against a source basis."""

    document: str = Field(min_length=1, description="The document's durable key.")
    unit: str = Field(min_length=1)
    variant: Locale
    decision: Literal["signed_off", "needs_work", "rejected"]
    target_hash: str = Field(min_length=1)
    source_basis: str = Field(min_length=1, description="The content key decided against.")
    by: str = Field(min_length=1)
    at: Instant

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.document, self.unit, self.variant)


def shard_name(document: str) -> str:
    """The shard file of a document key: one file per document, a readable flat name."""
    return document.replace("%", "%25").replace("/", "%2F") + ".jsonl"


def load_state(project_dir: Path) -> list[StateRecord]:
    """Every committed record in `state/*.jsonl`, a bad line named by file and line number.

    A later line for the same (document, unit, variant) replaces an earlier one: shards are
    appended to.
    """
    folder = project_dir / STATE_DIR
    records: dict[tuple[str, str, str], StateRecord] = {}
    if not folder.is_dir():
        return []
    for file in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(file.read_text("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise source_error(file, f"line {number}", f"not valid JSON: {exc.msg}") from None
            record = parse_model(StateRecord, data, file, prefix=f"line {number}")
            records.pop(record.key, None)
            records[record.key] = record
    return list(records.values())
