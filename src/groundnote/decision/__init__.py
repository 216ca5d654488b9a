"""Rule decisions: the approval channel's writers for rules.

Imported only by the approval routes of `surfaces/http` and by `surfaces/web` (AT2); the
composition root hands `CAPABILITIES` to the approval channel, never to the agent registry.
"""

from groundnote.decision.capabilities import CAPABILITIES, RULE_DECIDE
from groundnote.decision.handlers import rule_decide
from groundnote.decision.models import RuleDecisionInput

__all__ = ["CAPABILITIES", "RULE_DECIDE", "RuleDecisionInput", "rule_decide"]
