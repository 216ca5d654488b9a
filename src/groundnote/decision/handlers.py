"""A person's decision on a rule: adopt or reject a proposal, retract an adopted rule.

Reached only through the approval channel (its HTTP route and the approval pages); agents
never decide (DESIGN §2.6). Decisions are rows: a new decision never edits an old one."""

from __future__ import annotations

from groundnote.capabilities import Context
from groundnote.core import RuleAnswer, rule_answer
from groundnote.decision.models import RuleDecisionInput
from groundnote.domain.errors import (
    AlreadyDecided,
    NotFound,
    ReasonMissing,
    StateChanged,
)
from groundnote.domain.guidance import Next

__all__ = ["rule_decide"]


# What each verdict needs the rule's latest verdict to be (None: no decision yet, proposed).
_FROM: dict[str, str | None] = {"adopt": None, "reject": None, "retract": "adopt"}


def rule_decide(ctx: Context, value: RuleDecisionInput) -> RuleAnswer:
    if value.verdict != "adopt" and not (value.reason and value.reason.strip()):
        raise ReasonMissing(f"To {value.verdict} a rule, give a reason.")
    with ctx.write(value.scope) as conn:
        row = conn.execute(
            "SELECT st.status, (SELECT d.verdict FROM rule_decision d WHERE d.rule_id = st.id "
            "ORDER BY d.seq DESC LIMIT 1) AS latest FROM rule_state st WHERE st.id = ?",
            (value.id,),
        ).fetchone()
        if row is None:
            raise NotFound(f"No rule {value.id} in {value.scope}.")
        if row["latest"] != _FROM[value.verdict]:
            if value.verdict == "retract" and row["latest"] is None:
                raise StateChanged(
                    f"The rule {value.id} is only proposed; there is nothing to retract.",
                    remedy="Reject the proposal instead, with a reason.",
                    current=row["status"],
                )
            raise AlreadyDecided(
                f"The rule {value.id} is {row['status']} already.", current=row["status"]
            )
        conn.execute(
            "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, decided_at, "
            "channel) SELECT coalesce(max(seq), 0) + 1, ?, ?, ?, ?, ?, 'approval' "
            "FROM rule_decision",
            (value.id, value.verdict, value.reason, ctx.actor, ctx.clock.instant()),
        )
        ctx.log.refs = [f"rule/{value.id}"]
        return rule_answer(
            ctx, conn, value.id, [Next(tool="read_rule", why="see the rule as it is now")]
        )
