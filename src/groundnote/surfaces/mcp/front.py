"""The first moments of `groundnote mcp`: own the stdio wire and answer `initialize` at once.

Hosts give a stdio server a short time to answer `initialize` (DESIGN §13: ≤ 1 s), but
importing the MCP SDK and the registry takes about that long on its own, and longer on a busy
machine. So the process claims the wire before those imports, with the standard library only:
a thread reads stdin line by line into a queue, and an `initialize` arriving first is answered
from what this module knows (server info, instructions, capabilities, the negotiated protocol
version). The SDK then starts on the same queue (surfaces/mcp/stdio.py): it receives every
line, the `initialize` included, so its session is set up as usual; its own answer to that
`initialize` is dropped, having been given already. tests/surfaces/test_mcp_stdio.py holds
the early answer equal to the SDK's.

Nothing here imports the SDK, pydantic or the registry.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from typing import Any, BinaryIO

from groundnote import __version__
from groundnote.surfaces.mcp.instructions import INSTRUCTIONS

__all__ = [
    "CAPABILITIES",
    "HANDSHAKE_VERSIONS",
    "Front",
    "claim_for_mcp",
    "early_initialize_result",
]

# The protocol revisions the SDK negotiates through `initialize`, oldest first (mcp_types'
# HANDSHAKE_PROTOCOL_VERSIONS), and what the server declares; a test holds both to the SDK's.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}


def early_initialize_result(params: Any) -> dict[str, Any]:
    """The `initialize` result the SDK would give: the client's version where the server
    speaks it, else the newest it speaks."""
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version,
        "serverInfo": {"name": "groundnote", "version": __version__},
    }


class Front:
    """The stdio wire of this process: lines in (a queue; None at end of input), lines out."""

    def __init__(self, stdin: BinaryIO, wire: BinaryIO) -> None:
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.answered: Any = None  # the id of the `initialize` answered early, if one was
        self._wire = wire
        self._lock = threading.Lock()
        self._stdin = stdin
        threading.Thread(target=self._read, name="mcp-stdin", daemon=True).start()

    @classmethod
    def claim(cls) -> Front:
        """Take fd 0 and fd 1 for the protocol. fd 1 then points at stderr, so that stray
        output of any library lands in the log instead of corrupting the wire."""
        wire = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
        # Buffered: a raw file's readline reads byte by byte (a syscall per byte).
        return cls(os.fdopen(os.dup(0), "rb"), wire)

    def write(self, data: bytes) -> None:
        with self._lock:
            self._wire.write(data.rstrip(b"\n") + b"\n")
            self._wire.flush()

    def _read(self) -> None:
        first = True
        for line in iter(self._stdin.readline, b""):
            if first and line.strip():
                first = False
                self._answer_early(line)
            self.lines.put(line)
        self.lines.put(None)

    def _answer_early(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return  # the SDK's side answers what does not parse
        if not isinstance(message, dict) or message.get("method") != "initialize":
            return
        if "id" not in message:
            return
        self.answered = message["id"]
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "result": early_initialize_result(message.get("params")),
        }
        self.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


# Set by the command-line entry when the command is `mcp`, before the heavy imports.
claimed: Front | None = None


def claim_for_mcp() -> None:
    global claimed
    claimed = Front.claim()
