"""One record as `knowledge_base.record` answers it: the file, read now, with references resolved."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from groundnote.config import KnowledgeConfig
from groundnote.domain.errors import NotFound, ValidationFailed
from groundnote.knowledge.models import KnowledgeRecord, ResolvedReference, ResolvedRelation
from groundnote.knowledge.records import (
    RECORD_ID_RE,
    SOURCE_CLASSES,
    Record,
    Relation,
    parse_record,
)
from groundnote.knowledge.resolve import Resolver, record_uri
from groundnote.store.sql import Connection, Row

__all__ = ["find_record", "record_from_row", "resolve_record"]

_RECORD_ID = re.compile(RECORD_ID_RE)
_RECORD_SQL = (
    "SELECT r.*, f.sha256 FROM knowledge_record r JOIN knowledge_source_file f USING (path) "
    "WHERE r.id = ? ORDER BY r.source_class = 'curated' DESC, r.path"
)


def record_from_row(row: Row) -> Record:
    return Record(
        id=row["id"],
        path=row["path"],
        source_class=row["source_class"],
        klass=row["class"],
        status=row["status"],
        epistemics=row["epistemics"],
        origin=row["origin"],
        date=row["date"],
        title=row["title"],
        superseded_by=row["superseded_by"],
        derived_from=tuple(json.loads(row["derived_from"])),
        relations=tuple(Relation(r["type"], r["target"]) for r in json.loads(row["relations"])),
    )


def _not_found(record_id: str, cfg: KnowledgeConfig) -> NotFound:
    return NotFound(
        f"No knowledge record `{record_id}` under {cfg.root}/candidates or {cfg.root}/curated.",
        remedy="Check the id (it is the file name without .md); list candidates to see the ids.",
        next=[
            {"tool": "majordomus_knowledge_candidates", "why": "see the records awaiting review"}
        ],
    )


def find_record(
    conn: Connection, repo: Path, cfg: KnowledgeConfig, record_id: str
) -> tuple[Record, str]:
    """The record and its file's text, read now: a file edited since the index is parsed again.

    Curated wins over a candidate of the same id (a promotion that left the candidate behind).
    """
    if not _RECORD_ID.fullmatch(record_id):
        raise _not_found(record_id, cfg)
    for row in conn.execute(_RECORD_SQL, (record_id,)).fetchall():
        try:
            data = (repo / row["path"]).read_bytes()
        except FileNotFoundError:
            continue  # deleted since the index was refreshed
        if hashlib.sha256(data).hexdigest() == row["sha256"]:
            return record_from_row(row), data.decode("utf-8")
        return _parse_now(row["path"], data, row["source_class"]), data.decode("utf-8", "replace")
    for source_class in reversed(SOURCE_CLASSES):
        path = f"{cfg.root}/{source_class}/{record_id}.md"
        try:
            data = (repo / path).read_bytes()
        except FileNotFoundError:
            continue
        return _parse_now(path, data, source_class), data.decode("utf-8", "replace")
    raise _not_found(record_id, cfg)


def _parse_now(path: str, data: bytes, source_class: str) -> Record:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationFailed(
            f"The record file {path} is not UTF-8 text.", remedy="Save the file as UTF-8."
        ) from exc
    parsed = parse_record(path, text, source_class)
    if isinstance(parsed, Record):
        return parsed
    listing = "; ".join(f"{p.path}:{p.line}: {p.message}" for p in parsed)
    raise ValidationFailed(
        f"The record file is malformed: {listing}.",
        remedy="Fix the front matter as each problem says; `knowledge validate` lists them all.",
        problems=[{"path": p.path, "line": p.line, "message": p.message} for p in parsed],
    )


def resolve_record(resolver: Resolver, record: Record, content: str) -> KnowledgeRecord:
    derived = []
    for reference in record.derived_from:
        found = resolver.resolve(reference)
        derived.append(
            ResolvedReference(
                reference=reference,
                resolution=found.resolution,
                target=found.target,
                reason=found.reason,
            )
        )
    relations = []
    for relation in record.relations:
        found = resolver.resolve(relation.target)
        relations.append(
            ResolvedRelation(
                relation_type=relation.type,
                reference=relation.target,
                resolution=found.resolution,
                target=found.target,
                reason=found.reason,
            )
        )
    return KnowledgeRecord(
        id=record.id,
        uri=record_uri(record.id),
        path=record.path,
        source_class=record.source_class,
        class_=record.klass,
        status=record.status,
        epistemics=record.epistemics,
        origin=record.origin,
        date=record.date,
        title=record.title,
        derived_from=derived,
        relations=relations,
        superseded_by=record.superseded_by,
        resolved=all(r.resolution != "missing" for r in derived)
        and all(r.resolution != "missing" for r in relations),
        content=content,
    )
