"""Groundnote against the reference MCP memory server (npm `@modelcontextprotocol/server-memory`),
both over MCP stdio, on what matters to a user:

* finding the right entity despite umlaut spellings, typos, a dropped legal form, other case;
* speed of a lookup;
* never losing a write when several agents write at once.

The peer is installed with npm into bench/out/peers (not committed). basic-memory (PyPI) needs
Python ≥ 3.12 and cannot be installed on this machine's 3.11; it is left out and said so.

    .venv/bin/python -m bench.peers [--n 1000] [--writers 4] [--writes 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from mcp import Client, StdioServerParameters

from bench.common import Timing, print_table
from groundnote.auth import Right, create_grant
from groundnote.runtime import open_runtime

PEER_PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"
PEERS = Path(__file__).resolve().parent / "out" / "peers"

STEMS = [
    "Müller",
    "Schröder",
    "Bäcker",
    "Größe",
    "Kühne",
    "Jäger",
    "Fuß",
    "Löwe",
    "Weiß",
    "Häuser",
    "Vogel",
    "Krause",
    "Lehmann",
    "Zimmer",
    "Braun",
    "Hoffmann",
    "Schäfer",
    "Koch",
    "Groß",
    "Böhm",
]
TRADES = [
    "Logistik",
    "Bau",
    "Metalltechnik",
    "Druckerei",
    "Elektro",
    "Möbelwerk",
    "Brauerei",
    "Gärtnerei",
    "Software",
    "Küchenstudio",
    "Holzbau",
    "Spedition",
    "Maschinenbau",
    "Optik",
]
PLACES = [
    "Nord",
    "Süd",
    "Ost",
    "West",
    "Köln",
    "München",
    "Lübeck",
    "Würzburg",
    "Düsseldorf",
    "Fürth",
]
FORMS = ["GmbH", "AG", "KG", "e.V.", "GmbH & Co. KG", "UG", "OHG"]

UMLAUT = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
)


def organisations(n: int, rng: random.Random) -> list[str]:
    """Distinct organisations: two names never differ by their legal form alone."""
    most = len(STEMS) * len(TRADES) * len(PLACES)
    if n > most:
        raise SystemExit(f"--n is at most {most}")
    bodies: set[str] = set()
    while len(bodies) < n:
        bodies.add(f"{rng.choice(STEMS)} {rng.choice(TRADES)} {rng.choice(PLACES)}")
    return sorted(f"{body} {rng.choice(FORMS)}" for body in sorted(bodies))


def swap_typo(name: str, rng: random.Random) -> str:
    word_start = name.index(" ") + 1  # swap two letters inside the trade word
    i = rng.randrange(word_start, word_start + 4)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def query_kinds(rng: random.Random) -> dict[str, Callable[[str], str]]:
    return {
        "exact": lambda s: s,
        "lower case": str.lower,
        "umlauts spelled out": lambda s: s.translate(UMLAUT),
        "legal form dropped": lambda s: (
            s.rsplit(" ", 1)[0] if not s.endswith("Co. KG") else s[: -len(" GmbH & Co. KG")]
        ),
        "one swapped pair": lambda s: swap_typo(s, rng),
    }


def install_peer() -> Path:
    entry = PEERS / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if not entry.exists():
        PEERS.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--prefix", str(PEERS), PEER_PACKAGE], check=True
        )
    return entry


class Side(Protocol):
    """One MCP server under test: how to load entities, look one up, write, count."""

    name: str

    def params(self) -> StdioServerParameters: ...

    async def load(self, client: Client, names: list[str]) -> None: ...

    async def first_hit(self, client: Client, query: str) -> str | None: ...

    async def write_one(self, client: Client, name: str) -> None: ...

    async def count(self, client: Client) -> int: ...


def _data(result: Any) -> Any:
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


class MemoryServer:
    """The reference memory server: a knowledge graph in one JSONL file."""

    name = "reference memory server"

    def __init__(self, entry: Path, file: Path) -> None:
        self.entry = entry
        self.file = file

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command="node",
            args=[str(self.entry)],
            env={**os.environ, "MEMORY_FILE_PATH": str(self.file)},
        )

    async def load(self, client: Client, names: list[str]) -> None:
        for name in names:  # one per call, as an agent files what it meets
            await self.write_one(client, name)

    async def first_hit(self, client: Client, query: str) -> str | None:
        found = _data(await client.call_tool("search_nodes", {"query": query}))
        entities = found.get("entities", [])
        return entities[0]["name"] if entities else None

    async def write_one(self, client: Client, name: str) -> None:
        _data(
            await client.call_tool(
                "create_entities",
                {"entities": [{"name": name, "entityType": "organisation", "observations": []}]},
            )
        )

    async def count(self, client: Client) -> int:
        return len(_data(await client.call_tool("read_graph", {})).get("entities", []))


class Groundnote:
    """Groundnote's entity graph in one scope file."""

    name = "Groundnote"

    def __init__(self, home: Path, token: str) -> None:
        self.home = home
        self.token = token

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "groundnote", "--home", str(self.home), "mcp", "--token", self.token],
        )

    async def load(self, client: Client, names: list[str]) -> None:
        for name in names:
            await self.write_one(client, name)

    async def first_hit(self, client: Client, query: str) -> str | None:
        found = _data(await client.call_tool("entity_resolve", {"scope": "bench", "q": query}))
        candidates = found.get("candidates", [])
        return candidates[0]["name"] if candidates else None

    async def write_one(self, client: Client, name: str) -> None:
        _data(
            await client.call_tool(
                "entity_create",
                {
                    "scope": "bench",
                    "type": "organisation",
                    "name": name,
                    "parent_id": None,
                    "force": True,
                    "reason": "benchmark load: names are distinct by construction",
                },
            )
        )

    async def count(self, client: Client) -> int:
        seen = 0
        page = 1
        while True:
            tree = _data(await client.call_tool("entity_tree", {"scope": "bench", "page": page}))
            nodes = tree.get("nodes", [])
            seen += len(nodes)
            if len(nodes) < 50:
                return seen
            page += 1


async def quality(
    side: Side, names: list[str], sample: list[str], rng: random.Random
) -> tuple[dict[str, float], Timing, float]:
    async with Client(side.params()) as client:
        start = time.perf_counter()
        await side.load(client, names)
        load_s = time.perf_counter() - start
        hits: dict[str, float] = {}
        samples: list[float] = []
        for kind, make in query_kinds(rng).items():
            right = 0
            for target in sample:
                begin = time.perf_counter()
                got = await side.first_hit(client, make(target))
                samples.append((time.perf_counter() - begin) * 1000)
                right += got == target
            hits[kind] = right / len(sample)
    return hits, Timing(samples), load_s


async def concurrent_writes(sides: list[Side], writers: int, writes: int) -> tuple[int, int]:
    """`writers` server processes on one store, each writing `writes` entities at once."""

    async def writer(side: Side, k: int) -> None:
        async with Client(side.params()) as client:
            for i in range(writes):
                await side.write_one(client, f"Schreiber {k:02d}-{i:03d} Zuverlässig GmbH")

    await asyncio.gather(*(writer(side, k) for k, side in enumerate(sides)))
    async with Client(sides[0].params()) as client:
        return await sides[0].count(client), writers * writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="entities loaded into each server")
    parser.add_argument("--sample", type=int, default=100, help="targets queried per kind")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--writes", type=int, default=50)
    args = parser.parse_args()
    if shutil.which("node") is None or shutil.which("npm") is None:
        sys.exit("bench.peers needs node and npm on PATH for the reference memory server")
    entry = install_peer()
    work = Path(tempfile.mkdtemp(prefix="gn-peers-"))
    rng = random.Random(7)
    names = organisations(args.n, rng)
    sample = rng.sample(names, min(args.sample, len(names)))

    runtime = open_runtime(work / "home", environ={})
    runtime.home.create_scope("bench")
    _, token = create_grant(
        runtime.home.instance,
        "bench",
        rights={"bench": Right.PROPOSE},
        channels=["mcp"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    runtime.close()
    ours = Groundnote(work / "home", token)
    peer = MemoryServer(entry, work / "memory.jsonl")

    rows = []
    speed = []
    for side in (ours, peer):
        hits, timing, load_s = asyncio.run(quality(side, names, sample, random.Random(11)))
        rows.append([side.name, *(f"{hits[k]:.2f}" for k in query_kinds(rng))])
        speed.append([side.name, args.n / load_s, timing.p50, timing.p95])
    print_table(
        f"hit@1 over MCP stdio, {args.n} organisations, {len(sample)} targets per kind",
        ["server", *query_kinds(rng)],
        rows,
    )
    print_table(
        "speed over MCP stdio", ["server", "loads/s", "lookup p50 ms", "lookup p95 ms"], speed
    )

    writes = []
    for make in (
        lambda: [Groundnote(work / "home", token) for _ in range(args.writers)],
        lambda: [MemoryServer(entry, work / "shared.jsonl") for _ in range(args.writers)],
    ):
        sides = make()
        kept, sent = asyncio.run(concurrent_writes(sides, args.writers, args.writes))
        extra = args.n if isinstance(sides[0], Groundnote) else 0
        writes.append([sides[0].name, sent, kept - extra, sent - (kept - extra)])
    print_table(
        f"{args.writers} server processes on one store, writing at once",
        ["server", "writes acknowledged", "present afterwards", "lost"],
        writes,
    )
    print(
        "\nbasic-memory (PyPI) was not compared: it requires Python >= 3.12; this machine has 3.11."
    )


if __name__ == "__main__":
    main()
