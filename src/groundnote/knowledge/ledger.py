"""The ledger: JSONL files in the checkout that vouch for sessions, tasks and decisions.

Each line is one JSON object with at least `kind` (`session`, `task` or `decision`) and `id`;
other keys are the ledger's own business. Groundnote keeps no task store of its own, so the
ledger is the one reader for tasks and decisions; sessions are also vouched for by the tracked
session records (`knowledge.sessions`). A line that is not such an object is a `Problem` with
its line, like a malformed record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath

from groundnote.knowledge.records import Problem

__all__ = ["LEDGER_KINDS", "LedgerEntry", "is_ledger_file", "parse_ledger"]

LEDGER_KINDS = ("session", "task", "decision")


@dataclass(frozen=True)
class LedgerEntry:
    kind: str
    id: str
    path: str
    line: int


def is_ledger_file(path: str, ledger: str) -> bool:
    """`ledger` names one JSONL file, or a folder whose *.jsonl files (at any depth) count."""
    if path == ledger:
        return True
    return path.endswith(".jsonl") and PurePosixPath(path).is_relative_to(ledger)


def parse_ledger(path: str, text: str) -> tuple[list[LedgerEntry], list[Problem]]:
    entries: list[LedgerEntry] = []
    problems: list[Problem] = []
    for n, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(Problem(path, n, f"not a JSON object: {exc.msg}"))
            continue
        if not isinstance(item, dict):
            problems.append(
                Problem(path, n, "a ledger line must be a JSON object with kind and id")
            )
            continue
        kind, ident = item.get("kind"), item.get("id")
        if kind not in LEDGER_KINDS:
            problems.append(
                Problem(path, n, f"kind must be one of {', '.join(LEDGER_KINDS)}, not {kind!r}")
            )
        elif not isinstance(ident, str) or not ident.strip() or ident == "none":
            problems.append(
                Problem(path, n, f"id must be a non-empty string other than 'none', not {ident!r}")
            )
        else:
            entries.append(LedgerEntry(kind, ident, path, n))
    return entries, problems
