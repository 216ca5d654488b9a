"""Usage records, concept sequences, usage statistics and the credit-repair sweep.

A successful usage row credits its concept at once (the hot path stays one insert and one
update). The credit it earned is only real when the row came from a bound, genuine trace; the
sweep (conceptCreditDecontaminate_write) rebuilds each concept's credits from the rows that
count:

* outcome `success`, and
* a trace id that is not synthetic (synthetic: starts with `synthetic`, `test`, `fake`,
  `mock`, `dummy` or `bench`, case-insensitive, or consists of zeros and dashes), and
* bound: the row names both a trace id and the activity execution it belongs to.
"""

from __future__ import annotations

import json
import re

from groundnote.domain.errors import NotFound
from groundnote.impulses.concepts import concept_by_id, missing_concepts
from groundnote.impulses.models import (
    ConceptSequence,
    DecontaminateRequest,
    DecontaminationChange,
    DecontaminationReport,
    SequenceData,
    Usage,
    UsageData,
    UsageStats,
)
from groundnote.impulses.session import Session, new_id, row_dict
from groundnote.store.sql import Row

__all__ = [
    "decontaminate_credits",
    "is_synthetic_trace",
    "record_sequence",
    "record_usage",
    "sequences",
    "usage_stats",
]

_SYNTHETIC = re.compile(r"^(synthetic|test|fake|mock|dummy|bench)|^[0-]+\Z", re.IGNORECASE)


def is_synthetic_trace(trace_id: str) -> bool:
    return bool(_SYNTHETIC.search(trace_id))


def record_usage(s: Session, data: UsageData) -> Usage:
    concept_by_id(s, data.concept_id)
    usage_id = new_id("usage")
    s.conn.execute(
        "INSERT INTO concept_usage (id, org_id, concept_id, trace_id, activity_execution_id, "
        "outcome, metadata, at) VALUES (?,?,?,?,?,?,?,?)",
        (
            usage_id,
            s.org,
            data.concept_id,
            data.trace_id,
            data.activity_execution_id,
            data.outcome,
            json.dumps(data.metadata),
            s.now,
        ),
    )
    if data.outcome == "success":
        s.conn.execute(
            "UPDATE concept SET credits = credits + 1, updated_at = ? WHERE id = ? AND org_id = ?",
            (s.now, data.concept_id, s.org),
        )
        s.fire("concept:updated", concept=concept_by_id(s, data.concept_id).model_dump())
    return Usage(
        id=usage_id,
        org_id=s.org,
        concept_id=data.concept_id,
        trace_id=data.trace_id,
        activity_execution_id=data.activity_execution_id,
        outcome=data.outcome,
        metadata=data.metadata,
        at=s.now,
    )


def _sequence(row: Row) -> ConceptSequence:
    return ConceptSequence.model_validate(row_dict(row, json_columns=("metadata", "concept_ids")))


def record_sequence(s: Session, data: SequenceData) -> ConceptSequence:
    missing = missing_concepts(s, data.concept_ids)
    if missing:
        raise NotFound(
            f"No concept {', '.join(missing[:5])} in your org; a sequence names existing concepts.",
            remedy="Create or upsert the concepts first, then record the sequence.",
        )
    sequence_id = new_id("sequence")
    s.conn.execute(
        "INSERT INTO concept_sequence (id, org_id, name, concept_ids, trace_id, "
        "activity_execution_id, outcome, metadata, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            sequence_id,
            s.org,
            data.name,
            json.dumps(data.concept_ids),
            data.trace_id,
            data.activity_execution_id,
            data.outcome,
            json.dumps(data.metadata),
            s.now,
        ),
    )
    s.conn.executemany(
        "INSERT INTO concept_sequence_member (sequence_id, position, concept_id) VALUES (?,?,?)",
        [(sequence_id, i, c) for i, c in enumerate(data.concept_ids)],
    )
    row = s.conn.execute("SELECT * FROM concept_sequence WHERE id = ?", (sequence_id,)).fetchone()
    return _sequence(row)


def sequences(
    s: Session, *, concept_id: str | None, trace_id: str | None, limit: int
) -> list[ConceptSequence]:
    """Sequences of the caller's org that contain a concept and/or belong to a trace."""
    if concept_id is not None:
        concept_by_id(s, concept_id)
    rows = s.conn.execute(
        "SELECT * FROM concept_sequence q WHERE q.org_id = :org "
        "AND (:trace IS NULL OR q.trace_id = :trace) "
        "AND (:concept IS NULL OR EXISTS (SELECT 1 FROM concept_sequence_member m "
        "     WHERE m.sequence_id = q.id AND m.concept_id = :concept)) "
        "ORDER BY q.created_at DESC, q.id LIMIT :limit",
        {"org": s.org, "trace": trace_id, "concept": concept_id, "limit": limit},
    ).fetchall()
    return [_sequence(r) for r in rows]


def usage_stats(s: Session, concept_id: str) -> UsageStats:
    concept = concept_by_id(s, concept_id)
    by_outcome = {
        r[0]: r[1]
        for r in s.conn.execute(
            "SELECT outcome, count(*) FROM concept_usage WHERE org_id = ? AND concept_id = ? "
            "GROUP BY outcome ORDER BY outcome",
            (s.org, concept_id),
        )
    }
    total, traces, last = s.conn.execute(
        "SELECT count(*), count(DISTINCT trace_id), max(at) FROM concept_usage "
        "WHERE org_id = ? AND concept_id = ?",
        (s.org, concept_id),
    ).fetchone()
    return UsageStats(
        concept_id=concept_id,
        loads=concept.loads,
        credits=concept.credits,
        usage_count=total,
        by_outcome=by_outcome,
        distinct_traces=traces,
        last_used_at=last,
    )


def _earns_credit(row: Row) -> str | None:
    """None when the row earns a credit; otherwise why it does not."""
    if row["outcome"] != "success":
        return "not_success"
    trace = (row["trace_id"] or "").strip()
    if not trace or not (row["activity_execution_id"] or "").strip():
        return "unbound"
    if is_synthetic_trace(trace):
        return "synthetic"
    return None


def decontaminate_credits(s: Session, req: DecontaminateRequest) -> DecontaminationReport:
    """Rebuild credits of concepts loaded at least `min_loads` times; writes only without dry run."""
    concepts = s.conn.execute(
        "SELECT id, credits FROM concept WHERE org_id = ? AND loads >= ? ORDER BY id",
        (s.org, req.min_loads),
    ).fetchall()
    discarded = {"synthetic": 0, "unbound": 0, "not_success": 0}
    counted = 0
    changes: list[DecontaminationChange] = []
    for concept in concepts:
        earned = 0
        for usage in s.conn.execute(
            "SELECT outcome, trace_id, activity_execution_id FROM concept_usage "
            "WHERE org_id = ? AND concept_id = ?",
            (s.org, concept["id"]),
        ):
            reason = _earns_credit(usage)
            if reason is None:
                earned += 1
            else:
                discarded[reason] += 1
        counted += earned
        if earned != concept["credits"]:
            changes.append(
                DecontaminationChange(
                    concept_id=concept["id"],
                    credits_before=concept["credits"],
                    credits_after=earned,
                )
            )
    if not req.dry_run:
        for change in changes:
            s.conn.execute(
                "UPDATE concept SET credits = ?, updated_at = ? WHERE id = ? AND org_id = ?",
                (change.credits_after, s.now, change.concept_id, s.org),
            )
            s.fire("concept:updated", concept=concept_by_id(s, change.concept_id).model_dump())
    before = sum(c["credits"] for c in concepts)
    return DecontaminationReport(
        dry_run=req.dry_run,
        min_loads=req.min_loads,
        concepts_scanned=len(concepts),
        concepts_changed=len(changes),
        credits_before=before,
        credits_after=before + sum(c.credits_after - c.credits_before for c in changes),
        usage_rows_counted=counted,
        usage_rows_discarded=discarded,
        changes=changes,
    )
