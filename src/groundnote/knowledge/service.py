"""The knowledge index of one scope, for the capabilities and the `rebuild` command.

A scope is bound to a checkout (`groundnote scope create NAME --repo PATH`); the index of that
checkout lives in the scope's file. Queries call `ensure_index` first: an index never built for
this checkout (or built with other folders) is built then, so the first call pays for it.
"""

from __future__ import annotations

from pathlib import Path

from groundnote.config import KnowledgeConfig
from groundnote.domain.errors import ValidationFailed
from groundnote.knowledge import gitrepo
from groundnote.knowledge.index import IndexReport, Progress, is_built, refresh
from groundnote.store.home import Home

__all__ = ["bound_checkout", "ensure_index", "rebuild"]


def bound_checkout(home: Home, scope: str, *, fallback: Path | None = None) -> Path:
    """The top of the git checkout bound to `scope`; `fallback` (the CLI's cwd) when none is."""
    repo = home.scope_info(scope).repo
    if repo is None:
        top = gitrepo.toplevel(fallback) if fallback is not None else None
        if top is None:
            raise ValidationFailed(
                f"Scope {scope!r} has no repository bound, so it holds no knowledge records.",
                remedy=(
                    "Bind a git checkout to the scope: `groundnote scope create NAME --repo PATH`"
                    " (or run the command line inside the checkout)."
                ),
            )
        return top
    path = Path(repo)
    # A checkout's top holds `.git` (a folder, or a file for a worktree); no process needed.
    if not (path / ".git").exists():
        raise ValidationFailed(
            f"The repository bound to scope {scope!r}, {path}, is not the top of a git checkout.",
            remedy="Bind the folder that holds `.git`, or `git init` it and commit the records.",
        )
    return path


def ensure_index(home: Home, cfg: KnowledgeConfig, scope: str, repo: Path, now: str) -> None:
    db = home.scope_db(scope)
    with db.read() as conn:
        built = is_built(conn, repo, cfg)
    if not built:
        refresh(db, repo, cfg, full=True, now=now)


def rebuild(
    home: Home,
    cfg: KnowledgeConfig,
    scope: str,
    *,
    repo: Path | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Empty the scope's knowledge index and build it again from the bound checkout.

    `repo` overrides the bound checkout (the command line passes the current directory's
    checkout when the scope has none); `progress(phase, done, total)` reports the phases
    `files`, `git` and `write`.
    """
    checkout = repo or bound_checkout(home, scope)
    return refresh(
        home.scope_db(scope), checkout, cfg, full=True, progress=progress, now=home.clock.instant()
    )
