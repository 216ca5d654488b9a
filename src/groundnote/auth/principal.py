"""Who is calling: a grant (agents, integrations, the CLI) or a person (the approval pages)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["CHANNELS", "LOCAL_OPERATOR", "Principal", "Right", "parse_right"]

CHANNELS = ("mcp", "api", "cli", "approval")


class Right(IntEnum):
    """read ⊂ propose ⊂ decide."""

    READ = 1
    PROPOSE = 2
    DECIDE = 3

    @property
    def label(self) -> str:
        return self.name.lower()


def parse_right(text: str) -> Right:
    try:
        return Right[text.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown right {text!r}; use read, propose or decide") from None


@dataclass(frozen=True)
class Principal:
    id: str  # grant:<name> or person:<name>
    org: str
    channels: frozenset[str]
    rights: dict[str, Right] = field(default_factory=dict)  # scope or "*" → right
    identity: str | None = None  # a person's email

    @property
    def is_person(self) -> bool:
        return self.id.startswith("person:")

    def right_on(self, scope: str) -> Right | None:
        return self.rights.get(scope, self.rights.get("*"))

    def strongest_right(self) -> Right | None:
        """The grant's right in its organisation: the strongest it holds on any scope."""
        return max(self.rights.values(), default=None)

    def readable_scopes(self, known: list[str]) -> list[str]:
        return [s for s in known if self.right_on(s) is not None]


# The command line on the home's own files: whoever holds the files holds the data.
LOCAL_OPERATOR = Principal(
    id="grant:local-cli", org="local", channels=frozenset({"cli"}), rights={"*": Right.PROPOSE}
)
