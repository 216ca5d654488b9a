"""`groundnote import memory-jsonl FILE` and `groundnote import basic-memory DIR`: another
memory server's graph, brought in through the capabilities an agent would call.

Every name is resolved first (`graph.entity_resolve`) and checked against the names read
before it: a would-be duplicate (a candidate scoring at least DUPLICATE_SCORE in the scope, or
the same normalised name earlier in the file) is reported and not created; its observations
and relations go to the entity it duplicates. Without `--apply` nothing is written: the
summary says what would be created, linked and skipped. With it, each entity is created
(`graph.entity_create`, without force, so the store's own duplicate check stands too), each
observation stored as a note source (`core.store_source`, `note:<digest>`, so a second run
stores nothing twice) with a `concerns` link to its entity, and each relation proposed as a
link between the two entities (`graph.link_propose`, origin proposed, the import named as the
reason, the peer's word for the relation kept in it). A person confirms or rejects them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from groundnote.domain.errors import DuplicateCandidate, GroundnoteError
from groundnote.graph import normalize
from groundnote.graph.peers import (
    DEFAULT_TYPES,
    PeerEntity,
    PeerGraph,
    map_type,
    read_basic_memory,
    read_memory_jsonl,
)
from groundnote.graph.scoring import DUPLICATE_SCORE
from groundnote.surfaces.cli.progressbar import PhaseBars
from groundnote.surfaces.cli.session import CliSession

__all__ = ["Summary", "basic_memory_command", "memory_jsonl_command", "run_import"]

# A relation between two entities becomes one of the entity → entity link types an agent may
# propose: sameness as same_as, every other relation as belongs_to (its word is in the reason).
SAME = {"same_as", "alias_of", "is_same_as", "duplicate_of"}
CONFIDENCE = 0.5  # the peer asserted it; nothing in the store is evidence for it yet

Invoke = Callable[..., dict[str, Any]]


@dataclass
class Summary:
    created: list[str] = field(default_factory=list)  # entity names
    duplicates: list[str] = field(default_factory=list)  # "name: duplicate of …"
    notes: int = 0
    linked: int = 0
    unchanged: int = 0  # notes and links a run before stored already
    skipped: list[str] = field(default_factory=list)  # what was left out, and why

    def count(self, stored: bool | None, linked: bool) -> None:
        self.notes += bool(stored)
        self.linked += linked
        self.unchanged += (stored is False) + (not linked)

    def lines(self, applied: bool) -> list[str]:
        verb = "" if applied else "would be "
        return [
            f"entities {verb}created: {len(self.created)}",
            f"notes {verb}stored: {self.notes}",
            f"links {verb}proposed: {self.linked}",
            f"notes and links there already: {self.unchanged}",
            f"duplicates, not created: {len(self.duplicates)}",
            *(f"  {d}" for d in self.duplicates),
            f"skipped: {len(self.skipped)}",
            *(f"  {s}" for s in self.skipped),
        ]


def _note_id(entity: str, text: str) -> str:
    digest = hashlib.sha256(json.dumps([entity, text], ensure_ascii=False).encode()).hexdigest()
    return f"note:peer-{digest[:24]}"


@dataclass
class _Plan:
    """Which store entity each peer name stands for: created (None until written) or found."""

    ids: dict[str, str | None] = field(default_factory=dict)  # peer name → entity id
    by_form: dict[str, str] = field(default_factory=dict)  # normalised name → first peer name


def _place(
    entity: PeerEntity, plan: _Plan, invoke: Invoke, scope: str, summary: Summary
) -> str | None:
    """What the name duplicates (the first peer name of its form, or the id of a store
    entity), or None: create it."""
    form = normalize(entity.name)
    first = plan.by_form.get(form)
    if first is not None and first != entity.name:
        summary.duplicates.append(f"{entity.name} ({entity.origin}): the same name as {first}")
        plan.ids[entity.name] = plan.ids.get(first)
        return first
    found = invoke("graph.entity_resolve", scope=scope, q=entity.name[:200])["candidates"]
    if found and found[0]["score"] >= DUPLICATE_SCORE:
        best = found[0]
        summary.duplicates.append(
            f"{entity.name} ({entity.origin}): duplicate of {best['id']} {best['name']} "
            f"({best['match']}, {best['score']:.2f})"
        )
        plan.ids[entity.name] = plan.ids[best["id"]] = best["id"]
        return str(best["id"])
    plan.by_form[form] = entity.name
    return None


def run_import(
    graph: PeerGraph,
    invoke: Invoke,
    scope: str,
    *,
    source: str,
    types: dict[str, str],
    known_types: list[str],
    apply: bool,
    progress: Callable[[str, int, int], None] | None = None,
) -> Summary:
    """Plan (and with `apply`, write) the import of `graph` into `scope`."""
    summary = Summary(skipped=list(graph.problems))
    plan = _Plan()
    reason = f"imported from {source} (groundnote import)"
    merged: dict[str, PeerEntity] = {}
    for n, entity in enumerate(graph.entities, start=1):
        if progress is not None:
            progress("entities", n, len(graph.entities))
        existing = _place(entity, plan, invoke, scope, summary)
        target = merged.setdefault(existing or entity.name, entity)
        if target is not entity:
            target.observations.extend(entity.observations)
        if existing is not None:
            continue
        summary.created.append(entity.name)
        plan.ids[entity.name] = None
        if apply:
            try:
                out = invoke(
                    "graph.entity_create",
                    scope=scope,
                    type=map_type(entity.type, types, known_types),
                    name=entity.name[:200],
                    reason=reason,
                )
                plan.ids[entity.name] = out["entity"]["id"]
            except DuplicateCandidate as exc:  # the store's own check, on what resolve missed
                summary.created.pop()
                summary.duplicates.append(f"{entity.name} ({entity.origin}): {exc.message}")
                plan.ids.pop(entity.name)
    for n, (name, entity) in enumerate(merged.items(), start=1):
        if progress is not None:
            progress("notes", n, len(merged))
        entity_id = plan.ids.get(name)  # a name, or the id of the entity it duplicates
        for observation in entity.observations:
            if not apply:
                summary.notes += 1
                summary.linked += 1
                continue
            if entity_id is None:  # its create was refused as a duplicate, listed above
                continue
            note = _note_id(entity.name, observation.text)
            title = entity.name + (f" ({observation.category})" if observation.category else "")
            stored = invoke(
                "core.store_source",
                scope=scope,
                source={
                    "kind": "note",
                    "id": note,
                    "title": title[:500],
                    "date": observation.day,
                    "author": observation.author[:320],
                    "text": observation.text[:10_000],
                },
            )["stored"]
            linked = _link(
                invoke, scope, f"source/{note}", f"entity/{entity_id}", "concerns", reason
            )
            summary.count(stored, linked)
    for n, relation in enumerate(graph.relations, start=1):
        if progress is not None:
            progress("relations", n, len(graph.relations))
        ends = [relation.source, relation.target]
        missing = [e for e in ends if e not in plan.ids]
        if missing:
            summary.skipped.append(
                f"relation {relation.source} -{relation.type}-> {relation.target} "
                f"({relation.origin}): no entity {missing[0]!r} in the import or the scope"
            )
            continue
        if not apply:
            summary.linked += 1
            continue
        first, second = plan.ids[relation.source], plan.ids[relation.target]
        if first is None or second is None or first == second:
            summary.skipped.append(f"relation {relation.source} -> {relation.target}: one entity")
            continue
        kind = "same_as" if relation.type.lower() in SAME else "belongs_to"
        linked = _link(
            invoke,
            scope,
            f"entity/{first}",
            f"entity/{second}",
            kind,
            f"{reason}: {relation.source} {relation.type} {relation.target}",
        )
        summary.count(None, linked)
    return summary


def _link(invoke: Invoke, scope: str, from_ref: str, to_ref: str, kind: str, reason: str) -> bool:
    """Propose the link; whether it is new (an open one of the same kind answers as it is)."""
    out = invoke(
        "graph.link_propose",
        scope=scope,
        from_ref=from_ref,
        to_ref=to_ref,
        type=kind,
        confidence=CONFIDENCE,
        reason=reason[:1000],
    )
    return bool(out["created"])


def _types(option: str | None) -> dict[str, str]:
    """The default table with `--types` on top: a JSON object or a file holding one."""
    table = dict(DEFAULT_TYPES)
    if option:
        text = Path(option).read_text("utf-8") if Path(option).is_file() else option
        extra = json.loads(text)
        if not isinstance(extra, dict):
            raise click.BadParameter("--types takes a JSON object: peer type → entity type")
        table.update({str(k).lower(): str(v) for k, v in extra.items()})
    return table


def _run(
    session: CliSession, graph: PeerGraph, scope: str, source: str, types: str | None, apply: bool
) -> None:
    runtime = session.runtime
    principal = session.principal()

    def invoke(name: str, /, **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(name)
        return runtime.invoke(cap, raw, principal=principal, channel="cli").model_dump(mode="json")

    try:
        with PhaseBars() as bars:
            summary = run_import(
                graph,
                invoke,
                scope,
                source=source,
                types=_types(types),
                known_types=runtime.config.graph.entity_types,
                apply=apply,
                progress=bars,
            )
    except GroundnoteError as exc:
        Console(stderr=True, soft_wrap=True, highlight=False).print(
            f"[red]{exc.code}[/red]: {exc.message}\n{exc.remedy}"
        )
        raise SystemExit(1) from exc
    for line in summary.lines(apply):
        click.echo(line)
    if not apply:
        click.echo("dry run: nothing was written; run again with --apply to write it")


_TYPES_HELP = (
    "Peer type → entity type, as a JSON object or a file holding one, on top of the default "
    "table (docs/export.md); unmapped types not in the store's list become topic."
)
_AUTHOR_HELP = "Who the observations are attributed to, where the peer records no author."


@click.command(
    "memory-jsonl", help="Import the MCP memory server's memory.jsonl (dry run by default)."
)
@click.option("--scope", required=True, help="The scope to import into.")
@click.option("--types", default=None, help=_TYPES_HELP)
@click.option("--author", default="memory-server", show_default=True, help=_AUTHOR_HELP)
@click.option("--apply", is_flag=True, help="Write; without it, only report what would be done.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def memory_jsonl_command(
    session: CliSession, scope: str, types: str | None, author: str, apply: bool, file: Path
) -> None:
    _run(session, read_memory_jsonl(file, author), scope, f"memory.jsonl {file.name}", types, apply)


@click.command(
    "basic-memory", help="Import a basic-memory directory of notes (dry run by default)."
)
@click.option("--scope", required=True, help="The scope to import into.")
@click.option("--types", default=None, help=_TYPES_HELP)
@click.option("--author", default="basic-memory", show_default=True, help=_AUTHOR_HELP)
@click.option("--apply", is_flag=True, help="Write; without it, only report what would be done.")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.pass_obj
def basic_memory_command(
    session: CliSession, scope: str, types: str | None, author: str, apply: bool, directory: Path
) -> None:
    graph = read_basic_memory(directory, author)
    _run(session, graph, scope, f"basic-memory {directory.name}", types, apply)
