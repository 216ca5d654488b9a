"""`feedback`: a verdict on one ref that one logged search returned."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    CliExposure,
    Context,
    HttpExposure,
    McpExposure,
    Tenancy,
)
from groundnote.domain.errors import ReferenceUnknown, ValidationFailed
from groundnote.domain.guidance import Next, StrictModel
from groundnote.domain.ids import ScopeName

__all__ = ["FEEDBACK", "FeedbackInput", "FeedbackOutput"]


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


def feedback(ctx: Context, value: FeedbackInput) -> FeedbackOutput:
    with ctx.write(value.scope) as conn:
        logged = conn.execute(
            "SELECT refs FROM search_log WHERE id = ? AND operation = 'search'", (value.search_id,)
        ).fetchone()
        if logged is None:
            raise ReferenceUnknown(
                f"No search {value.search_id} is logged in {value.scope}.",
                remedy="Use the search_id of a search answer in this scope.",
            )
        returned = conn.execute(
            "SELECT 1 FROM json_each(?) WHERE value = ?", (logged["refs"], value.ref)
        ).fetchone()
        if returned is None:
            raise ValidationFailed(
                f"The search {value.search_id} did not return {value.ref}.",
                remedy="Give feedback only on a ref that search returned (a head or a group entry).",
            )
        cursor = conn.execute(
            "INSERT INTO feedback (search_id, ref, verdict, given_by, given_at) VALUES (?,?,?,?,?)",
            (value.search_id, value.ref, value.verdict, ctx.actor, ctx.clock.instant()),
        )
        ctx.log.refs = [value.ref]
        new_id = int(cursor.lastrowid or 0)
    steps = []
    if value.verdict == "wrong" and value.ref.startswith("rule/"):
        steps.append(Next(tool="propose_rule", why="propose the correct rule with supersedes"))
    return FeedbackOutput(
        id=new_id, search_id=value.search_id, ref=value.ref, verdict=value.verdict, next=steps
    )


FEEDBACK: Capability[FeedbackInput, FeedbackOutput] = Capability(
    name="core.feedback",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=FeedbackInput,
    output=FeedbackOutput,
    description=(
        "Record whether one result of a search helped: useful, not-useful, or wrong (false or "
        "outdated). Name the search_id of the answer and one ref it returned. Use it after you "
        "relied on or discarded a result, and always when the person says a rule is wrong; then "
        "offer to propose the correct rule."
    ),
    handler=feedback,
    mcp=McpExposure("feedback"),
    http=HttpExposure("POST", "/v1/feedback"),
    cli=CliExposure(("feedback",)),
    annotations=Annotations(read_only=False),
    log_operation="feedback",
)
