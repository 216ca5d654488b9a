"""What other agent-memory servers keep, read into one shape: entities with observations, and
relations between them by name (issue 17 item 5; DESIGN §15 P7 for the notes they become).

* The reference MCP memory server (`@modelcontextprotocol/server-memory`) keeps memory.jsonl:
  one JSON object a line, `{"type": "entity", "name", "entityType", "observations": [...]}`
  or `{"type": "relation", "from", "to", "relationType"}`. It records no dates or authors, so
  an observation is dated by the file's modification day and authored by the caller's name.
* basic-memory keeps a directory of Markdown notes: YAML front matter (`title`, `type`,
  `permalink`, `tags`, optionally `created`/`date` and `author`), observations as list items
  `- [category] text #tag (context)`, relations as `- relation_type [[Target]]`, and
  `[[Target]]` anywhere else in the text (a `links_to` relation to the target).

Peer types are mapped onto the store's entity types by `DEFAULT_TYPES`, which `--types` and
the caller's overrides extend; a type neither names falls back to `FALLBACK_TYPE`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import frontmatter

__all__ = [
    "DEFAULT_TYPES",
    "FALLBACK_TYPE",
    "Observation",
    "PeerEntity",
    "PeerGraph",
    "PeerRelation",
    "map_type",
    "read_basic_memory",
    "read_memory_jsonl",
]

DEFAULT_TYPES = {
    "person": "person",
    "people": "person",
    "user": "person",
    "organization": "organisation",
    "organisation": "organisation",
    "company": "organisation",
    "team": "department",
    "department": "department",
    "project": "project",
    "customer": "customer",
    "client": "customer",
    "case": "case",
    "issue": "case",
    "object": "object",
    "product": "object",
    "tool": "object",
    "topic": "topic",
    "concept": "topic",
    "note": "topic",
}
FALLBACK_TYPE = "topic"


@dataclass(frozen=True)
class Observation:
    text: str
    day: str
    author: str
    category: str | None = None


@dataclass
class PeerEntity:
    name: str
    type: str  # the peer's own word
    observations: list[Observation] = field(default_factory=list)
    origin: str = ""  # where it was read: file and line


@dataclass(frozen=True)
class PeerRelation:
    source: str
    target: str
    type: str  # the peer's own word
    origin: str = ""


@dataclass
class PeerGraph:
    entities: list[PeerEntity] = field(default_factory=list)
    relations: list[PeerRelation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def map_type(peer_type: str, table: dict[str, str], known: list[str]) -> str:
    """The store's type for a peer's: the table's word, else the word itself if the store has
    that type, else the fallback."""
    word = re.sub(r"[^a-z0-9_]+", "_", peer_type.strip().lower()).strip("_")
    mapped = table.get(word, word)
    return mapped if mapped in known else FALLBACK_TYPE


def _mtime_day(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).strftime("%Y-%m-%d")


def read_memory_jsonl(path: Path, author: str) -> PeerGraph:
    graph = PeerGraph()
    day = _mtime_day(path)
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                graph.problems.append(f"{where}: not JSON ({exc.msg})")
                continue
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "entity" and isinstance(item.get("name"), str) and item["name"].strip():
                graph.entities.append(
                    PeerEntity(
                        name=item["name"].strip(),
                        type=str(item.get("entityType") or FALLBACK_TYPE),
                        observations=[
                            Observation(text=o.strip(), day=day, author=author)
                            for o in item.get("observations") or []
                            if isinstance(o, str) and o.strip()
                        ],
                        origin=where,
                    )
                )
            elif kind == "relation" and all(
                isinstance(item.get(k), str) for k in ("from", "to", "relationType")
            ):
                graph.relations.append(
                    PeerRelation(item["from"], item["to"], item["relationType"], where)
                )
            else:
                graph.problems.append(f"{where}: neither an entity nor a relation")
    return graph


_OBSERVATION = re.compile(r"^\s*[-*]\s+\[(?P<category>[^\]]+)\]\s+(?P<text>.+?)\s*$")
_RELATION = re.compile(r"^\s*[-*]\s+(?P<type>[A-Za-z_][\w-]*)\s+\[\[(?P<target>[^\]]+)\]\]\s*$")
_WIKI = re.compile(r"\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]")


def _day(value: object, fallback: str) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return value[:10]
    return fallback


def _title(post: frontmatter.Post, path: Path) -> str:
    title = post.metadata.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    heading = re.search(r"^#\s+(.+)$", post.content, re.MULTILINE)
    return heading.group(1).strip() if heading else path.stem


def read_basic_memory(directory: Path, author: str) -> PeerGraph:
    graph = PeerGraph()
    for path in sorted(directory.rglob("*.md")):
        where = str(path.relative_to(directory))
        try:
            post = frontmatter.load(path)
        except (ValueError, UnicodeDecodeError) as exc:  # yaml errors are ValueErrors
            graph.problems.append(f"{where}: not a note ({exc})")
            continue
        day = _day(post.metadata.get("created", post.metadata.get("date")), _mtime_day(path))
        writer = str(post.metadata.get("author") or author)
        name = _title(post, path)
        entity = PeerEntity(name=name, type=str(post.metadata.get("type") or "note"), origin=where)
        related: list[PeerRelation] = []
        mentioned: dict[str, str] = {}  # target → where, for links in running text
        for number, line in enumerate(post.content.splitlines(), start=1):
            if found := _OBSERVATION.match(line):
                text = _WIKI.sub(lambda m: m.group(1), found["text"])
                entity.observations.append(
                    Observation(text=text, day=day, author=writer, category=found["category"])
                )
            elif found := _RELATION.match(line):
                related.append(
                    PeerRelation(name, found["target"].strip(), found["type"], f"{where}:{number}")
                )
                continue
            for target in _WIKI.findall(line):
                mentioned.setdefault(target.strip(), f"{where}:{number}")
        # A link in running text says less than a relation line to the same target.
        named = {r.target for r in related}
        related += [
            PeerRelation(name, target, "links_to", at)
            for target, at in mentioned.items()
            if target not in named
        ]
        graph.relations += related
        graph.entities.append(entity)
    return graph
