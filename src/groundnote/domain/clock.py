"""The one clock. Instants are UTC `YYYY-MM-DDTHH:MM:SS.sssZ`; days are `YYYY-MM-DD` in a zone."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

__all__ = ["Clock", "FixedClock", "SystemClock", "format_instant"]


def format_instant(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


class Clock(ABC):
    """Replaceable in tests: subsystems ask `ctx.clock`, never `datetime.now()`."""

    @abstractmethod
    def now(self) -> datetime: ...

    def instant(self) -> str:
        return format_instant(self.now())

    def today(self, zone: str) -> str:
        return self.now().astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d")


class SystemClock(Clock):
    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class FixedClock(Clock):
    moment: datetime

    def now(self) -> datetime:
        return self.moment
