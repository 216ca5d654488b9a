"""One handler per knowledge operation (seed 004): record, candidates, status, validate.

The scope names the checkout; omitted, it is the one scope the grant may read that has a
repository bound (the registry admitted the call on those, `ctx.scopes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from groundnote.capabilities import (
    Context,
)
from groundnote.domain.errors import ValidationFailed
from groundnote.domain.guidance import Next
from groundnote.knowledge.index import derivation, refresh
from groundnote.knowledge.models import (
    CandidateEntry,
    CandidatesInput,
    CandidatesOutput,
    Dangling,
    FileProblem,
    KnowledgeRecord,
    KnowledgeRecordInput,
    StatusInput,
    StatusOutput,
    ValidateInput,
    ValidateOutput,
)
from groundnote.knowledge.records import key_line
from groundnote.knowledge.resolve import Resolver, record_uri
from groundnote.knowledge.service import bound_checkout, ensure_index
from groundnote.knowledge.view import find_record, record_from_row, resolve_record

__all__ = ["candidates", "record", "status", "validate"]


def _scope(ctx: Context, named: str | None) -> str:
    if named is not None:
        return named
    readable = ctx.scopes  # every scope the grant may read, when the input names none
    bound = [s for s in readable if ctx.home.scope_info(s).repo]
    if len(bound) == 1:
        return bound[0]
    if not bound and ctx.channel == "cli" and len(readable) == 1:
        return readable[0]  # the command line reads the checkout of the current directory
    choices = bound or list(readable)
    raise ValidationFailed(
        "Name the scope: your grant reaches "
        + (
            f"{len(choices)} scopes bound to a repository."
            if bound
            else "no scope bound to a repository."
        ),
        remedy="Pass `scope`, one of the candidates; `groundnote scope create NAME --repo PATH` binds one.",
        candidates=choices,
    )


def _checkout(ctx: Context, named: str | None) -> tuple[str, Path]:
    scope = _scope(ctx, named)
    fallback = Path.cwd() if ctx.channel == "cli" else None
    return scope, bound_checkout(ctx.home, scope, fallback=fallback)


def _refreshed(ctx: Context, named: str | None) -> tuple[str, Path]:
    scope, repo = _checkout(ctx, named)
    cfg = ctx.config.knowledge
    refresh(ctx.scope_db(scope), repo, cfg, progress=ctx.progress, now=ctx.clock.instant())
    return scope, repo


def record(ctx: Context, value: KnowledgeRecordInput) -> KnowledgeRecord:
    scope, repo = _checkout(ctx, value.scope)
    cfg = ctx.config.knowledge
    ensure_index(ctx.home, cfg, scope, repo, ctx.clock.instant())
    with ctx.scope_db(scope).read() as conn:
        found, content = find_record(conn, repo, cfg, value.id)
        return resolve_record(Resolver(conn, repo, cfg, authoritative=False), found, content)


def candidates(ctx: Context, value: CandidatesInput) -> CandidatesOutput:
    scope, repo = _refreshed(ctx, value.scope)
    cfg = ctx.config.knowledge
    entries = []
    with ctx.scope_db(scope).read() as conn:
        total = conn.execute(
            "SELECT count(*) FROM knowledge_record WHERE status = 'candidate'"
        ).fetchone()[0]
        resolver = Resolver(conn, repo, cfg, authoritative=True)
        rows = conn.execute(
            "SELECT * FROM knowledge_record WHERE status = 'candidate' "
            "ORDER BY date DESC, id, path LIMIT ?",
            (value.limit,),
        ).fetchall()
        for row in rows:
            rec = record_from_row(row)
            references = [*rec.derived_from, *(r.target for r in rec.relations)]
            dangling = sum(not resolver.resolve(r).resolves for r in references)
            entries.append(
                CandidateEntry(
                    id=rec.id,
                    uri=record_uri(rec.id),
                    path=rec.path,
                    source_class=rec.source_class,
                    class_=rec.klass,
                    epistemics=rec.epistemics,
                    date=rec.date,
                    title=rec.title,
                    resolved=dangling == 0,
                    dangling=dangling,
                )
            )
    steps = [Next(tool="majordomus_knowledge_record", why="read one candidate with its references")]
    return CandidatesOutput(total=total, candidates=entries, next=steps if entries else [])


def status(ctx: Context, value: StatusInput) -> StatusOutput:
    scope, repo = _checkout(ctx, value.scope)
    found = derivation(ctx.scope_db(scope), repo, ctx.config.knowledge)
    up_to_date = (
        found.indexed and not (found.changed or found.new or found.gone) and not found.history_moved
    )
    steps = []
    if not up_to_date:
        steps.append(
            Next(tool="majordomus_knowledge_validate", why="refresh the index and check it")
        )
    return StatusOutput(
        repo=str(repo),
        indexed=found.indexed,
        up_to_date=up_to_date,
        head=found.head,
        head_indexed=found.head_indexed,
        history_moved=found.history_moved,
        changed=found.changed,
        new=found.new,
        gone=found.gone,
        unchanged=found.unchanged,
        next=steps,
    )


def validate(ctx: Context, value: ValidateInput) -> ValidateOutput:
    scope, repo = _refreshed(ctx, value.scope)
    cfg = ctx.config.knowledge
    problems: list[FileProblem] = []
    dangling: list[Dangling] = []
    resolved = 0
    with ctx.scope_db(scope).read() as conn:
        for row in conn.execute("SELECT path, line, message FROM knowledge_problem"):
            problems.append(FileProblem(path=row["path"], line=row["line"], message=row["message"]))
        problems.extend(_duplicates(conn, repo))
        ids = {r["id"] for r in conn.execute("SELECT id FROM knowledge_record")}
        resolver = Resolver(conn, repo, cfg, authoritative=True)
        rows = conn.execute("SELECT * FROM knowledge_record ORDER BY path").fetchall()
        for row in rows:
            rec = record_from_row(row)
            named: list[tuple[Any, str]] = [("derived_from", r) for r in rec.derived_from]
            named += [("relations", r.target) for r in rec.relations]
            clean = True
            for field, reference in named:
                found = resolver.resolve(reference)
                if not found.resolves:
                    clean = False
                    dangling.append(
                        Dangling(
                            id=rec.id,
                            path=rec.path,
                            field=field,
                            reference=reference,
                            reason=found.reason or "nothing answers to it",
                        )
                    )
            resolved += clean
            if rec.superseded_by is not None and rec.superseded_by not in ids:
                dangling.append(
                    Dangling(
                        id=rec.id,
                        path=rec.path,
                        field="superseded_by",
                        reference=rec.superseded_by,
                        reason=f"no knowledge record `{rec.superseded_by}` under {cfg.root}",
                    )
                )
    problems.sort(key=lambda p: (p.path, p.line, p.message))
    ok = not dangling and not problems
    steps = (
        []
        if ok
        else [
            Next(tool="majordomus_knowledge_record", why="see one record's references and reasons")
        ]
    )
    return ValidateOutput(
        ok=ok,
        records=len(rows),
        resolved=resolved,
        dangling=dangling,
        problems=problems,
        next=steps,
    )


def _duplicates(conn: Any, repo: Path) -> list[FileProblem]:
    """A second file claiming an id: curated wins over candidates, then the first path."""
    found = []
    rows = conn.execute(
        "SELECT id, path FROM knowledge_record WHERE id IN "
        "(SELECT id FROM knowledge_record GROUP BY id HAVING count(*) > 1) "
        "ORDER BY id, source_class = 'curated' DESC, path"
    ).fetchall()
    winner: dict[str, str] = {}
    for row in rows:
        if row["id"] not in winner:
            winner[row["id"]] = row["path"]
            continue
        text = (repo / row["path"]).read_text("utf-8", "replace")
        found.append(
            FileProblem(
                path=row["path"],
                line=key_line(text, "id"),
                message=f"id {row['id']!r} is also the record at {winner[row['id']]}; "
                "remove one of the two files",
            )
        )
    return found
