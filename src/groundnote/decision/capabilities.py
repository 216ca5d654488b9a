"""The decision capability: a person adopts, rejects or retracts a rule, on the approval
channel only; the model is in models.py, the handler in handlers.py."""

from __future__ import annotations

from groundnote.auth.principal import Right
from groundnote.capabilities import Annotations, Capability, HttpExposure, Tenancy
from groundnote.core import RuleAnswer
from groundnote.decision import handlers
from groundnote.decision.models import RuleDecisionInput

__all__ = ["CAPABILITIES", "RULE_DECIDE"]


RULE_DECIDE: Capability[RuleDecisionInput, RuleAnswer] = Capability(
    name="decision.rule_decide",
    kind="command",
    right=Right.DECIDE,
    tenancy=Tenancy.field("scope"),
    input=RuleDecisionInput,
    output=RuleAnswer,
    description=(
        "A person adopts or rejects a proposed rule, or retracts an adopted one. Reject and "
        "retract need a reason; a second decision on the same state is refused as already-decided."
    ),
    handler=handlers.rule_decide,
    http=HttpExposure("POST", "/v1/rules/{id}/decision"),
    approval=True,
    annotations=Annotations(read_only=False, destructive=True),
    log_operation="decide",
)

CAPABILITIES = [RULE_DECIDE]
