"""The rules of the house (DESIGN §3), restated for the Python layout.

AT1/AT2 and the layering are import contracts checked by import-linter (pyproject.toml,
[tool.importlinter]); AT3/AT5 are a scan of the SQL writers; AT4 checks the MCP names.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client

from groundnote.auth import Principal
from groundnote.runtime import Runtime
from groundnote.surfaces.mcp.server import build_server

SRC = Path(__file__).resolve().parents[2] / "src" / "groundnote"

# statement pattern → the files (relative to src/groundnote) that may contain it
WRITERS: dict[str, tuple[str, ...]] = {
    # Each version records its entity in the change record (graph/trigram.py, note_version).
    r"INSERT\s+INTO\s+entity_version\b": ("graph/entities.py", "structure/versions.py"),
    r"INSERT\s+INTO\s+entity\b(?!_)": ("graph/entities.py",),
    r"INSERT\s+INTO\s+link\b(?!_)": ("graph/links.py",),
    r"INSERT\s+INTO\s+review\b": ("structure/",),
    r"(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+entity_closure\b": ("graph/closure.py",),
    r"(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+entity_fts\b": ("graph/fts.py",),
    # Persons decide in decision/; core/propose.py holds the auto-adopt policy and the agent's
    # retract of an auto-adopted rule (both limited by the table's triggers); core/transfer.py
    # restores recorded decisions when a scope is imported.
    r"INSERT\s+INTO\s+rule_decision\b": ("decision/", "core/propose.py", "core/transfer.py"),
}
FORBIDDEN_TOOL_NAME = re.compile(r"confirm|reject|revoke|review|decide|approve|archive|revert")


def _allowed(relative: str, places: tuple[str, ...]) -> bool:
    return "/migrations/" in f"/{relative}" or any(
        relative == p or (p.endswith("/") and relative.startswith(p)) for p in places
    )


def test_sql_writers_stay_in_their_modules() -> None:
    """AT3 and AT5: who may write entity versions, entities, links, reviews, closure, FTS, decisions."""
    offences = []
    for path in SRC.rglob("*"):
        if path.suffix not in (".py", ".sql"):
            continue
        relative = path.relative_to(SRC).as_posix()
        text = path.read_text("utf-8")
        for pattern, places in WRITERS.items():
            if re.search(pattern, text, re.IGNORECASE) and not _allowed(relative, places):
                offences.append(f"{relative}: {pattern}")
    assert offences == []


def test_agent_creates_are_unconfirmed() -> None:
    """AT3: graph/entities.py inserts versions only with the literal 'unconfirmed' status."""
    text = (SRC / "graph" / "entities.py").read_text("utf-8")
    statements = re.findall(
        r"INSERT\s+INTO\s+entity_version\b.*?(?:\"\"\"|\)\s*$)", text, re.S | re.M
    )
    assert statements, "graph/entities.py writes the first version of every entity"
    for statement in statements:
        assert "'unconfirmed'" in statement, statement


def test_no_mcp_tool_or_prompt_can_decide(runtime: Runtime, agent: Principal) -> None:
    """AT4: no tool or prompt name says confirm, reject, revoke, review, decide, approve, archive, revert."""

    async def names() -> list[str]:
        async with Client(build_server(runtime, lambda _ctx: agent)) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            prompts = [p.name for p in (await client.list_prompts()).prompts]
        return tools + prompts

    found = anyio.run(names)
    assert found
    assert [n for n in found if FORBIDDEN_TOOL_NAME.search(n)] == []


def test_import_contracts() -> None:
    """AT1, AT2 and the layering, by import-linter."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=SRC.parents[1],
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# Where a principal's rights may be read: auth (which defines them), the registry's pipeline
# (which checks them), list_scopes (core/handlers.py: it shows each scope's right) and serve (which warms
# the resolve index of the scopes a grant reaches). Nowhere else re-checks.
RIGHT_READERS: dict[str, tuple[str, ...]] = {
    r"\.right_on\(|\.strongest_right\(|\.readable_scopes\(": (
        "auth/",
        "capabilities/",
        "core/handlers.py",
        "surfaces/cli/serve.py",
    ),
    r"\bscope_refusal\(": (
        "auth/scopes.py",
        "domain/errors.py",
        "capabilities/pipeline.py",
        "store/home.py",
    ),
}


def test_rights_and_scopes_are_checked_in_one_place() -> None:
    """The registry checks the right on the declared tenancy before every handler; a handler,
    page or surface that checked again would be a second rule that can drift from the first."""
    offences = []
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC).as_posix()
        text = path.read_text("utf-8")
        for pattern, places in RIGHT_READERS.items():
            if re.search(pattern, text) and not _allowed(relative, places):
                offences.append(f"{relative}: {pattern}")
    assert offences == []


def test_the_approval_pages_only_render() -> None:
    """The page module neither queries nor checks: it calls approval capabilities."""
    text = (SRC / "surfaces" / "web" / "pages.py").read_text("utf-8")
    for needle in ("SELECT", ".execute(", "sqlite3", "scope_db", "right_on", "structure.views"):
        assert needle not in text, needle
