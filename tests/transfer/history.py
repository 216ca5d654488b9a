"""A scope's history played through the registry, and every read of it, for the transfer tests.

`play` runs steps an agent and a person would take (creates, moves, renames, archives, links,
reviews, sources, rules and decisions), each through its capability on its own channel; a
refused step is part of the history, as in use. `reads` asks every read capability of a scope
with inputs taken from what the scope holds, so two homes can be compared answer by answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from groundnote.auth import Principal, Right
from groundnote.capabilities import Capability, Registry
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError
from groundnote.runtime import Runtime
from groundnote.surfaces.http.approval import approval_registry
from tests.conftest import make_principal

Step = tuple[Any, ...]

PERSON = Principal(
    id="person:ruth",
    org="local",
    channels=frozenset({"approval"}),
    rights={"*": Right.DECIDE},
    identity="ruth@example.org",
)

NAMES = ("Vertrieb Nord", "Müller GmbH", "Straße & Söhne", "Einkauf", "Vertrieb Süd", "Lager")


@dataclass
class Scope:
    """One scope of one home, and the callers that write and read it."""

    runtime: Runtime
    name: str
    agent: Principal
    approval: Registry = field(default_factory=approval_registry)

    @classmethod
    def open(cls, runtime: Runtime, name: str) -> Scope:
        if name not in runtime.home.scope_names():
            runtime.home.create_scope(name)
        agent, _ = make_principal(runtime, f"agent-{name}", {name: Right.PROPOSE}, ["mcp", "api"])
        return cls(runtime, name, agent)

    def call(self, capability: str, /, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        cap = self.runtime.registry.get(capability)
        out = self.runtime.invoke(cap, raw, principal=self.agent, channel=channel)
        return out.model_dump(mode="json")

    def person(self, capability: str, /, **raw: Any) -> dict[str, Any]:
        cap = self.approval.get(capability)
        out = self.approval.invoke(
            self.runtime.home, self.runtime.config, cap, raw, principal=PERSON, channel="approval"
        )
        return out.model_dump(mode="json")

    def rows(self, sql: str) -> list[Any]:
        with self.runtime.home.scope_db(self.name).read() as conn:
            return [r[0] for r in conn.execute(sql)]


def _pick(items: list[str], n: int) -> str | None:
    return items[n % len(items)] if items else None


def _current(scope: Scope, entity_id: str) -> int:
    return int(scope.rows(f"SELECT max(version) FROM entity_version WHERE id = '{entity_id}'")[0])


def play(scope: Scope, steps: list[Step], clock: FixedClock) -> None:
    for n, (kind, a, b) in enumerate(steps):
        clock.moment += timedelta(seconds=1)
        entities = scope.rows("SELECT id FROM entity ORDER BY seq")
        links = scope.rows("SELECT id FROM link ORDER BY seq")
        rules = scope.rows("SELECT id FROM rule ORDER BY seq")
        sources = scope.rows("SELECT id FROM source ORDER BY seq")
        try:
            if kind == "create":
                parent = _pick(entities, a) if b % 3 else None
                scope.call(
                    "graph.entity_create",
                    scope=scope.name,
                    type="department",
                    name=f"{NAMES[b % len(NAMES)]} {n}",
                    aliases=[f"Kürzel {n}"] if b % 2 else [],
                    parent_id=parent,
                    force=True,
                    reason="generated",
                )
            elif kind == "move" and entities:
                target = None if b % 4 == 0 else _pick(entities, b)
                scope.call(
                    "graph.entity_move", scope=scope.name, id=_pick(entities, a), parent_id=target
                )
            elif kind == "rename" and entities:
                scope.call(
                    "graph.entity_update",
                    scope=scope.name,
                    id=_pick(entities, a),
                    name=f"{NAMES[b % len(NAMES)]} neu {n}",
                    force=True,
                    reason="renamed",
                )
            elif kind == "archive" and entities:
                entity = str(_pick(entities, a))
                scope.person(
                    "structure.archive",
                    id=entity,
                    version=_current(scope, entity),
                    subtree=bool(b % 2),
                    reason="retired",
                )
            elif kind == "link":
                ents = [f"entity/{e}" for e in entities]
                cited = [f"rule/{r}" for r in rules] + [f"source/{s}" for s in sources]
                kind_of, froms, tos = (
                    ("concerns", cited, ents),
                    ("same_as", ents, ents),
                    ("mentions", cited, ents + [f"rule/{r}" for r in rules]),
                )[b % 3]
                first, second = _pick(froms, a), _pick(tos, a + 1 + b)
                if first and second:
                    scope.call(
                        "graph.link_propose",
                        scope=scope.name,
                        from_ref=first,
                        to_ref=second,
                        type=kind_of,
                        confidence=round((b % 10) / 10, 1),
                        reason="the mail names it",
                    )
            elif kind == "review":
                if b % 2 and links:
                    verdict = "confirm" if a % 2 else "reject"
                    scope.person(
                        "structure.review",
                        target=f"link/{_pick(links, a)}",
                        verdict=verdict,
                        reason=None if verdict == "confirm" else "not so",
                    )
                elif entities:
                    entity = str(_pick(entities, a))
                    verdict = "confirm" if a % 3 else "revert"
                    scope.person(
                        "structure.review",
                        target=f"entity/{entity}@{_current(scope, entity)}",
                        verdict=verdict,
                        reason=None if verdict == "confirm" else "wrong",
                    )
            elif kind == "source":
                scope.call(
                    "core.store_source",
                    scope=scope.name,
                    source={
                        "kind": "mail",
                        "id": f"mail:<m{n}@example.org>",
                        "subject": f"Rabatt {NAMES[b % len(NAMES)]}",
                        "sender": "Ines Kraft <ines@example.org>",
                        "sent_at": "2026-10-01T08:00:00.000Z",
                        "body": f"Für {NAMES[a % len(NAMES)]} gilt ein Rabatt von {b} Prozent.",
                        "attachments": [
                            {"filename": "p.txt", "media_type": "text/plain", "text": "Staffel"}
                        ]
                        if a % 2
                        else [],
                    },
                )
            elif kind == "rule" and sources:
                scope.call(
                    "core.propose_rule",
                    scope=scope.name,
                    statement=f"Kunden im Gebiet {NAMES[b % len(NAMES)]} erhalten {a} Prozent.",
                    evidence={"quote": "Rabatt", "refs": [f"source/{_pick(sources, a)}"]},
                )
            elif kind == "decide" and rules:
                verdict = ("adopt", "reject", "retract")[b % 3]
                scope.person(
                    "decision.rule_decide",
                    scope=scope.name,
                    id=_pick(rules, a),
                    verdict=verdict,
                    reason=None if verdict == "adopt" else "nicht belegt",
                )
        except GroundnoteError:
            pass  # a refusal (a cycle, an archived parent, a decided rule) is history too


Inputs = Callable[[Scope], list[dict[str, Any]]]


def _each(sql: str, make: Callable[[Scope, str], dict[str, Any]]) -> Inputs:
    return lambda s: [make(s, v) for v in s.rows(sql)]


READS: dict[str, Inputs] = {
    "core.status": lambda s: [{"scope": s.name}],
    "core.search": lambda s: [
        {"scope": s.name, "query": q, "compact": False} for q in ("Rabatt", "Vertrieb", "Müller")
    ],
    "core.read_rule": _each(
        "SELECT id FROM rule ORDER BY seq", lambda s, i: {"scope": s.name, "id": i}
    ),
    "core.provenance": _each(
        "SELECT id FROM rule ORDER BY seq", lambda s, i: {"scope": s.name, "id": i}
    ),
    "core.list_rules": lambda s: [{"scope": s.name}],
    "core.list_proposals": lambda s: [{"scope": s.name}],
    "core.list_rejected": lambda s: [{"scope": s.name}],
    "graph.entity_resolve": lambda s: [
        {"scope": s.name, "q": q} for q in ("Vertrieb", "Mueller", "Strasse", "Lager 3")
    ],
    "graph.entity_tree": _each(
        "SELECT id FROM entity ORDER BY seq", lambda s, i: {"scope": s.name, "id": i}
    ),
    "graph.scope_tree": lambda s: [{"scope": s.name}],
    "graph.entity_path": _each(
        "SELECT id FROM entity ORDER BY seq", lambda s, i: {"scope": s.name, "id": i}
    ),
    "graph.link_list": lambda s: [
        {"scope": s.name, "ref": ref, "grouped": grouped}
        for ref in [f"entity/{e}" for e in s.rows("SELECT id FROM entity ORDER BY seq")]
        + [f"rule/{r}" for r in s.rows("SELECT id FROM rule ORDER BY seq")]
        for grouped in (False, True)
        if grouped is False or ref.startswith("entity/")
    ],
    "structure.overview": lambda s: [{}],
    "structure.pending": lambda s: [{"scope": s.name}],
    "structure.proposals": lambda s: [{"scope": s.name}],
    "structure.rule": _each("SELECT id FROM rule ORDER BY seq", lambda s, i: {"id": i}),
    "structure.source": _each(
        "SELECT id FROM source ORDER BY seq", lambda s, i: {"scope": s.name, "id": i}
    ),
}
IMPULSES = "an organisation's impulses: compared in test_impulses_roundtrip.py"
# Read capabilities whose answers are not the scope's truth, so a transfer need not keep them.
NOT_SCOPE_TRUTH = {
    "core.list_scopes": "the home's registry (which scopes exist), not one scope's content",
    "core.export": "compared byte for byte on its own",
    "knowledge_base.record": "a projection of a bound checkout, rebuilt from it",
    "knowledge_base.candidates": "a projection of a bound checkout, rebuilt from it",
    "knowledge_base.status": "a projection of a bound checkout, rebuilt from it",
    "knowledge_base.validate": "a projection of a bound checkout, rebuilt from it",
    "context.status": "a content project's files, not a scope",
    "context.projects": "the bindings of content projects, held in instance.db",
    "context.search": "a content project's terms, not a scope",
    "context.occurrences": "a content project's terms, not a scope",
    "impulses.discovery": IMPULSES,
    "impulses.impulse_read": IMPULSES,
    "impulses.concept": IMPULSES,
    "impulses.relatedConcepts": IMPULSES,
    "impulses.impulseCooccurrenceEdges": IMPULSES,
    "impulses.conceptUsageStats": IMPULSES,
    "impulses.conceptSequence": IMPULSES,
}
# Fields an answer carries that are made per call or are the file's, not the scope's truth:
# a search's id, the file's size, and the change record's row count (status counts rows).
PER_CALL = {"search_id", "took_ms", "timings", "stages", "file_bytes", "change_record"}


def queries(registry: Registry) -> list[Capability[Any, Any]]:
    return [cap for cap in registry if cap.kind == "query"]


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in PER_CALL}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def reads(scope: Scope) -> dict[str, list[Any]]:
    """Every read capability's answers (or refusals) on every input the scope suggests."""
    answers: dict[str, list[Any]] = {}
    for name, inputs in READS.items():
        out: list[Any] = []
        for raw in inputs(scope):
            try:
                if name.startswith("structure."):
                    out.append(scope.person(name, **raw))
                else:
                    out.append(scope.call(name, channel="api", **raw))
            except GroundnoteError as exc:
                out.append(exc.body())
        answers[name] = _strip(out)
    return answers
