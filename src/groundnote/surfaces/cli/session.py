"""The CLI's state: the home it opens (once, lazily) and who it acts as."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundnote.auth import LOCAL_OPERATOR, Principal
from groundnote.capabilities import Capability
from groundnote.domain.errors import AuthRequired
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.cli.progressbar import PhaseBars

__all__ = ["CliSession"]


@dataclass
class CliSession:
    home: Path
    token: str | None
    _runtime: Runtime | None = field(default=None, init=False)

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            self._runtime = open_runtime(self.home)
        return self._runtime

    def principal(self) -> Principal:
        """With a token, that grant's rights; without, the local operator of this home's files."""
        if self.token is None:
            return LOCAL_OPERATOR
        principal = self.runtime.authenticate(self.token)
        if principal is None:
            raise AuthRequired("The token is unknown, revoked or expired.")
        return principal

    def invoke(self, cap: Capability[Any, Any], raw: dict[str, Any]) -> dict[str, Any]:
        with PhaseBars() as bars:
            out = self.runtime.invoke(
                cap, raw, principal=self.principal(), channel="cli", progress=bars
            )
        return out.model_dump(mode="json")

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
