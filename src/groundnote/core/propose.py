"""Writing a proposed rule with its evidence, the auto-adopt policy, and an agent's retract of
what the policy adopted (the handlers `propose_rule` and `rule_retract` call these).

A rule's statement never changes: a correction is a new rule that supersedes the old one.
Decisions by a person live in `groundnote.decision`; the only adopt written here is the
policy's, in scopes whose approval mode is `auto`.
"""

from __future__ import annotations

import json

from groundnote.core.fts import index_rule
from groundnote.core.rules import (
    parse_evidence_ref,
)
from groundnote.core.sources import attachment_ref, source_ref
from groundnote.domain.errors import (
    AlreadyDecided,
    NotFound,
    ReferenceUnknown,
    RightMissing,
    ScopeMismatch,
    StateChanged,
    ValidationFailed,
)
from groundnote.store.sql import Connection

__all__ = [
    "AUTO_ADOPT",
    "auto_adopt",
    "canonical_refs",
    "check_supersedes",
    "insert_rule",
    "missing_refs",
    "retract_auto_adopted",
]


AUTO_ADOPT = "policy:auto-adopt"


def canonical_refs(refs: list[str]) -> list[tuple[str, str, int | None]]:
    out: list[tuple[str, str, int | None]] = []
    for ref in refs:
        source_id, n = parse_evidence_ref(ref)
        canonical = attachment_ref(source_id, n) if n is not None else source_ref(source_id)
        if canonical not in (c for c, _, _ in out):
            out.append((canonical, source_id, n))
    return out


def missing_refs(conn: Connection, refs: list[tuple[str, str, int | None]]) -> list[str]:
    missing = []
    for canonical, source_id, n in refs:
        if n is None:
            hit = conn.execute("SELECT 1 FROM source WHERE id = ?", (source_id,)).fetchone()
        else:
            hit = conn.execute(
                "SELECT 1 FROM source_attachment WHERE source_id = ? AND n = ?", (source_id, n)
            ).fetchone()
        if hit is None:
            missing.append(canonical)
    return missing


def insert_rule(conn: Connection, row: dict[str, object]) -> None:
    """Write a rule (its id and seq given), its evidence rows and its full-text entry."""
    names = ", ".join(row)
    conn.execute(
        f"INSERT INTO rule ({names}) VALUES ({', '.join('?' for _ in row)})", list(row.values())
    )
    refs = json.loads(str(row["evidence_refs"]))
    for _, source_id, n in canonical_refs(refs):
        conn.execute(
            "INSERT INTO rule_evidence (rule_id, source_id, n) VALUES (?, ?, ?)",
            (row["id"], source_id, n),
        )
    quote = row.get("evidence_quote")
    index_rule(conn, int(str(row["seq"])), str(row["statement"]), str(quote) if quote else None)


def check_supersedes(conn: Connection, scope: str, target: str) -> None:
    if not target.startswith(scope + "-"):
        raise ScopeMismatch(f"The rule {target} is not a rule of the scope {scope}.")
    row = conn.execute("SELECT status FROM rule_state WHERE id = ?", (target,)).fetchone()
    if row is None:
        raise ReferenceUnknown(
            f"The rule {target} does not exist in {scope}.",
            next=[{"tool": "search", "why": "find the rule to replace"}],
        )
    if row["status"] != "adopted":
        raise ValidationFailed(
            f"The rule {target} is {row['status']}; only an adopted rule in force can be superseded.",
            remedy="Omit supersedes, or name the rule that is in force now (read_rule shows its successors).",
            next=[{"tool": "read_rule", "why": f"see the state of {target}"}],
        )


def auto_adopt(conn: Connection, rule_id: str, at: str) -> None:
    """The approval mode auto: the policy adopts the rule the moment it is proposed."""
    conn.execute(
        "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, decided_at, "
        "channel) SELECT coalesce(max(seq), 0) + 1, ?, 'adopt', 'approval mode auto', ?, ?, "
        "'policy' FROM rule_decision",
        (rule_id, AUTO_ADOPT, at),
    )


def retract_auto_adopted(
    conn: Connection,
    scope: str,
    rule_id: str,
    *,
    reason: str,
    by: str,
    at: str,
    channel: str,
) -> None:
    """An agent's retract, when the person asks: only of a rule the policy adopted."""
    row = conn.execute(
        "SELECT status, auto_adopted FROM rule_state WHERE id = ?", (rule_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"No rule {rule_id} in {scope}.")
    if row["status"] == "retracted":
        raise AlreadyDecided(f"The rule {rule_id} is retracted already.", current="retracted")
    if not row["auto_adopted"]:
        raise RightMissing(
            f"The rule {rule_id} was not adopted by the policy; an agent may retract only "
            "auto-adopted rules.",
            remedy="Tell the person: a person retracts it on the approval page.",
        )
    if row["status"] not in ("adopted", "superseded"):
        raise StateChanged(f"The rule {rule_id} is {row['status']}; there is nothing to retract.")
    conn.execute(
        "INSERT INTO rule_decision (seq, rule_id, verdict, reason, decided_by, decided_at, "
        "channel) SELECT coalesce(max(seq), 0) + 1, ?, 'retract', ?, ?, ?, ? FROM rule_decision",
        (rule_id, reason, by, at, channel),
    )
