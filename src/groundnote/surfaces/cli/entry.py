"""The `groundnote` command's entry: claims the stdio wire first when the command is `mcp`.

`groundnote mcp` must answer `initialize` within a second of starting (DESIGN §13), and the
command line with its registry and the MCP SDK takes about that long to import; so the wire is
claimed, and an `initialize` answered, before they are (surfaces/mcp/front.py). Every other
command starts as before.
"""

from __future__ import annotations

import sys

__all__ = ["main", "runs_mcp"]

# The group's own options that take a value (see cli/main.py): their value is no command name.
_VALUED = {"--home", "--database-url", "--token"}


def runs_mcp(args: list[str]) -> bool:
    """Whether these arguments run `groundnote [options] mcp …` (not its help)."""
    if "-h" in args or "--help" in args:
        return False
    rest = iter(args)
    for arg in rest:
        if arg in _VALUED:
            next(rest, None)
        elif not arg.startswith("-"):
            return arg == "mcp"
    return False


def main() -> None:
    if runs_mcp(sys.argv[1:]):
        from groundnote.surfaces.mcp.front import claim_for_mcp

        claim_for_mcp()
    from groundnote.surfaces.cli.main import main as run

    run()
