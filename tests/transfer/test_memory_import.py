"""`groundnote import memory-jsonl` on a file the real MCP memory server wrote, and
`groundnote import basic-memory` on notes in its documented format (issue 17 item 5).

The memory server (`@modelcontextprotocol/server-memory`, pinned in tests/surfaces/node) is
driven over stdio by the official Python MCP client, as any host drives it; its memory.jsonl
holds umlauts and one near-duplicate ("Mueller GmbH" beside "Müller GmbH").
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from groundnote.runtime import open_runtime
from groundnote.surfaces.cli.main import cli

NODE_DIR = Path(__file__).parents[1] / "surfaces" / "node"
MEMORY = NODE_DIR / "node_modules" / ".bin" / "mcp-server-memory"
FIXTURE = Path(__file__).parent / "basic_memory"

ENTITIES = [
    {
        "name": "Müller GmbH",
        "entityType": "organization",
        "observations": ["Zahlt Rechnungen am Monatsende", "Sitz in Köln"],
    },
    {"name": "Jürgen Weiß", "entityType": "person", "observations": ["Einkäufer bei Müller"]},
    {"name": "Projekt Straßenbahn", "entityType": "project", "observations": []},
    {"name": "Mueller GmbH", "entityType": "company", "observations": ["Ruft montags an"]},
    {"name": "Lieferkette", "entityType": "thema", "observations": ["Engpass im Winter"]},
]
RELATIONS = [
    {"from": "Jürgen Weiß", "to": "Müller GmbH", "relationType": "works_at"},
    {"from": "Müller GmbH", "to": "Projekt Straßenbahn", "relationType": "sponsors"},
    {"from": "Lieferkette", "to": "Nirgendwo AG", "relationType": "affects"},
]


async def _write_with_the_memory_server(memory_file: Path) -> None:
    env = {"PATH": os.environ["PATH"], "MEMORY_FILE_PATH": str(memory_file)}
    server = StdioServerParameters(command=str(MEMORY), args=[], env=env)
    async with Client(server) as client:
        created = await client.call_tool("create_entities", {"entities": ENTITIES})
        assert not created.is_error, created.content
        related = await client.call_tool("create_relations", {"relations": RELATIONS})
        assert not related.is_error, related.content


@pytest.fixture(scope="module")
def memory_jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert MEMORY.exists(), f"run `npm ci --prefix {NODE_DIR}` to install the memory server"
    path = tmp_path_factory.mktemp("peer") / "memory.jsonl"
    anyio.run(_write_with_the_memory_server, path)
    assert "Müller GmbH" in path.read_text("utf-8")
    return path


def _groundnote(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    return result


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    assert _groundnote(home, "scope", "create", "sales").exit_code == 0
    return home


def _table(home: Path, sql: str) -> list[tuple[Any, ...]]:
    runtime = open_runtime(home, environ={})
    try:
        with runtime.home.scope_db("sales").read() as conn:
            return [tuple(r) for r in conn.execute(sql)]
    finally:
        runtime.close()


def test_a_dry_run_reports_and_writes_nothing(memory_jsonl: Path, tmp_path: Path) -> None:
    home = _home(tmp_path)
    out = _groundnote(home, "import", "memory-jsonl", str(memory_jsonl), "--scope", "sales")
    assert out.exit_code == 0, out.output
    assert "entities would be created: 4" in out.output
    assert "Mueller GmbH (memory.jsonl:4): the same name as Müller GmbH" in out.output
    assert "no entity 'Nirgendwo AG'" in out.output
    assert "nothing was written" in out.output
    assert _table(home, "SELECT count(*) FROM entity") == [(0,)]


def test_apply_creates_notes_and_proposed_links(memory_jsonl: Path, tmp_path: Path) -> None:
    home = _home(tmp_path)
    out = _groundnote(
        home, "import", "memory-jsonl", str(memory_jsonl), "--scope", "sales", "--apply",
        "--types", '{"thema": "topic"}',
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "entities created: 4" in out.output and "notes stored: 5" in out.output
    entities = dict(_table(home, "SELECT name, type FROM entity_current ORDER BY name"))
    assert entities == {
        "Jürgen Weiß": "person",
        "Lieferkette": "topic",
        "Müller GmbH": "organisation",
        "Projekt Straßenbahn": "project",
    }
    notes = _table(home, "SELECT title, body, sender FROM source WHERE kind = 'note' ORDER BY seq")
    assert ("Müller GmbH", "Ruft montags an", "memory-server") in notes  # the duplicate's, kept
    links = _table(home, "SELECT type, origin, reason FROM link ORDER BY seq")
    assert all(origin == "proposed" for _, origin, _ in links)
    assert ("belongs_to", "proposed", "imported from memory.jsonl memory.jsonl (groundnote "
            "import): Jürgen Weiß works_at Müller GmbH") in links  # fmt: skip
    assert sum(1 for kind, _, _ in links if kind == "concerns") == 5
    # a second run finds every name: nothing is created twice
    again = _groundnote(
        home, "import", "memory-jsonl", str(memory_jsonl), "--scope", "sales", "--apply"
    )
    assert "entities created: 0" in again.output, again.output
    assert "notes stored: 0" in again.output and "links proposed: 0" in again.output
    assert "notes and links there already: 12" in again.output  # 5 notes, 5 + 2 links
    assert _table(home, "SELECT count(*) FROM entity") == [(4,)]


def test_basic_memory_notes_become_entities_notes_and_links(tmp_path: Path) -> None:
    home = _home(tmp_path)
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURE, notes)
    out = _groundnote(home, "import", "basic-memory", str(notes), "--scope", "sales", "--apply")
    assert out.exit_code == 0, out.output
    entities = dict(_table(home, "SELECT name, type FROM entity_current ORDER BY name"))
    assert entities == {
        "Kaffeeröstung": "topic",
        "Rösterei Süd": "organisation",
        "Anna Köhler": "person",
    }
    observed = _table(
        home, "SELECT title, body, day, sender FROM source WHERE kind = 'note' ORDER BY seq"
    )
    assert ("Kaffeeröstung (methode)", "Helle Röstung für Filterkaffee #röstung", "2026-03-14",
            "basic-memory") in observed  # fmt: skip
    assert ("Anna Köhler (rolle)", "Leitet den Einkauf bei Rösterei Süd", "2026-05-02",
            "Anna") in observed  # fmt: skip
    links = _table(home, "SELECT reason FROM link WHERE type <> 'concerns' ORDER BY seq")
    reasons = " | ".join(r for (r,) in links)
    assert "Anna Köhler works_at Rösterei Süd" in reasons
    assert "Kaffeeröstung links_to Rösterei Süd" in reasons
