"""The input of a person's decision on a rule (its answer is core's RuleAnswer)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from groundnote.domain.guidance import StrictModel
from groundnote.domain.ids import RuleId, ScopeName

__all__ = ["RuleDecisionInput"]


class RuleDecisionInput(StrictModel):
    scope: ScopeName
    id: RuleId
    verdict: Literal["adopt", "reject", "retract"]
    reason: str | None = Field(
        None, min_length=1, max_length=1000, description="Required to reject or retract."
    )
