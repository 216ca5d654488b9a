"""Where `serve` runs: recorded in the home at each start, read by the other commands.

`groundnote mcp`, `person link` and every command that prints an approval link run in other
processes than `serve`; without `public_url` they would name the address in groundnote.json,
which is wrong whenever serve was started with `--port` or `--host`. So `serve` writes
`work/serve.json` when it has bound its socket, and the other commands build links from it.

It lives beside `work/cache/`, not in it: the cache is free to delete, this file is not
silent to lose — without it links fall back to groundnote.json's address.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from groundnote.config import url_for

__all__ = ["SERVED_FILE", "Served", "read_served", "record_served"]

SERVED_FILE = Path("work") / "serve.json"


@dataclass(frozen=True)
class Served:
    host: str
    port: int
    pid: int
    started_at: str

    @property
    def url(self) -> str:
        return url_for(self.host, self.port)

    def running(self) -> bool:
        """Whether the process that recorded it still runs (on this machine)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # it runs, as another user
            return True
        return True


def record_served(home: Path, host: str, port: int, started_at: str) -> None:
    path = home / SERVED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"host": host, "port": port, "pid": os.getpid(), "started_at": started_at}
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(data) + "\n", encoding="utf-8")
    partial.replace(path)  # a reader never sees half a file


def read_served(home: Path) -> Served | None:
    """The address serve last ran on, or None when it never ran here (or the file is bad)."""
    try:
        data = json.loads((home / SERVED_FILE).read_text(encoding="utf-8"))
        return Served(
            str(data["host"]), int(data["port"]), int(data["pid"]), str(data["started_at"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
