"""The CLI's state: the home it opens (once, lazily) and who it acts as.

Only the commands that make a home on purpose (`serve`, `scope create`) may open one that
does not exist yet; every other command in a directory without a home says so and how to
name one, instead of leaving an empty `./.groundnote` behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import click

from groundnote.auth import LOCAL_OPERATOR, Principal
from groundnote.capabilities import Capability
from groundnote.config import load_config
from groundnote.domain.errors import token_refused
from groundnote.runtime import Runtime, open_runtime
from groundnote.store import home_exists
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.served import read_served

__all__ = ["CliSession", "NoHome", "is_home", "store_url"]


def is_home(path: Path, database_url: str | None = None) -> bool:
    """A home was made here (`database_url`: the one `--database-url` named, if any)."""
    return home_exists(path, store_url(path, database_url))


def store_url(path: Path, database_url: str | None = None) -> str | None:
    """The PostgreSQL database the home at `path` lives in; None: SQLite files."""
    return load_config(path, database_url=database_url).database.url


class NoHome(click.ClickException):
    """A command that needs a home ran where there is none."""

    exit_code = 2

    def __init__(self, path: Path) -> None:
        super().__init__(f"there is no Groundnote home at {path.absolute()}.")

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"groundnote: {self.message}", err=True)
        click.echo(
            "remedy: run the command where the home is, or name it with --home DIR (or "
            "GROUNDNOTE_HOME=DIR). A new home is made only on purpose: `groundnote serve` "
            "or `groundnote scope create NAME` make one here.",
            err=True,
        )


@dataclass
class CliSession:
    home: Path
    token: str | None
    # `--database-url`: wins over groundnote.json and GROUNDNOTE_DATABASE_URL.
    database_url: str | None = None
    # Set by the commands that make a home on purpose, before they touch `runtime`.
    creates_home: bool = False
    # Links name the address serve last ran on (work/serve.json); serve itself binds anew.
    follows_served: bool = True
    _runtime: Runtime | None = field(default=None, init=False)

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            if not self.creates_home and not self.is_home():
                raise NoHome(self.home)
            runtime = open_runtime(self.home, database_url=self.database_url)
            served = read_served(self.home) if self.follows_served else None
            if served is not None and runtime.config.public_url is None:
                runtime.config.server = runtime.config.server.model_copy(
                    update={"host": served.host, "port": served.port}
                )
            self._runtime = runtime
        return self._runtime

    def is_home(self) -> bool:
        return is_home(self.home, self.database_url)

    def store_url(self) -> str | None:
        return store_url(self.home, self.database_url)

    def principal(self) -> Principal:
        """With a token, that grant's rights; without, the local operator of this home's files."""
        if self.token is None:
            return LOCAL_OPERATOR
        principal = self.runtime.presented(self.token)
        if principal is None:  # an empty token is no grant's token either
            raise token_refused()
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
