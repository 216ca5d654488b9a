"""Rule decisions: the approval channel's writers for rules.

Imported only by the approval routes of `surfaces/http` and by `surfaces/web` (AT2); the
composition root hands `CAPABILITIES` to the approval channel, never to the agent registry.
"""

from groundnote.decision.rules import RULE_DECIDE, RuleDecisionInput, rule_decide

CAPABILITIES = [RULE_DECIDE]

__all__ = ["CAPABILITIES", "RULE_DECIDE", "RuleDecisionInput", "rule_decide"]
