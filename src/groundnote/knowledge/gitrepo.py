"""What the index and the resolver ask git, asked through the `git` command.

Why the command and not pygit2 or dulwich: the `git` command reads every repository layout
that git itself writes (packs, worktrees, partial clones, new index versions) on every machine
that holds a checkout, needs no native build (pygit2 binds libgit2) and never lags git's
formats (dulwich reimplements them). Its cost, about 1.5 ms per process here, is paid when the
index is refreshed — a few calls in all, each answering for the whole repository — and when a
`record` call meets a reference the index has not seen yet; the index itself holds every
reachable commit and the last holder of every deleted path, so a reader answers from SQLite.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
from pathlib import Path

__all__ = [
    "HEX_RE",
    "GitError",
    "blob_exists",
    "commits",
    "deleted_paths",
    "fingerprint",
    "head",
    "last_holder",
    "toplevel",
    "tree_files",
    "verify_commit",
]

HEX_RE = re.compile(r"^[0-9a-f]{4,40}\Z")
_ENV = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}


class GitError(RuntimeError):
    """git refused: the message carries git's own words."""


def _git(repo: Path, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[bytes]:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "-c", "core.quotepath=off", *args],
            capture_output=True,
            env=_ENV,
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError(
            "the `git` command is not installed; install git to read the checkout"
        ) from exc
    if done.returncode not in ok:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]} failed in {repo}: {message}")
    return done


def _text(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", "surrogateescape")


def toplevel(path: Path) -> Path | None:
    """The checkout that holds `path`, or None when it is not inside one."""
    try:
        done = _git(path, "rev-parse", "--show-toplevel", ok=(0, 128))
    except GitError:
        return None
    if done.returncode != 0:
        return None
    return Path(_text(done).strip())


def head(repo: Path) -> str | None:
    """The commit HEAD names, or None in a repository without commits."""
    done = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1, 128))
    value = _text(done).strip()
    return value if done.returncode == 0 and value else None


def fingerprint(repo: Path) -> str:
    """A hash of HEAD and every ref: equal fingerprints mean equal reachable history."""
    done = _git(repo, "show-ref", "--head", ok=(0, 1))
    return hashlib.sha256(done.stdout).hexdigest()


def tree_files(repo: Path) -> tuple[list[str], list[str]]:
    """(files of the working tree, tracked files missing from it), repository-relative.

    The tree is what git tracks plus what it would track (untracked, not ignored).
    """
    listed = _text(_git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"))
    present: list[str] = []
    missing: list[str] = []
    for path in sorted(set(filter(None, listed.split("\0")))):
        (present if (repo / path).is_file() else missing).append(path)
    return present, missing


def commits(repo: Path) -> list[str]:
    """Every commit reachable from HEAD or a ref."""
    return _text(_git(repo, "rev-list", "--all")).split()


def deleted_paths(repo: Path) -> dict[str, str]:
    """Every path a commit deleted → the last commit whose tree still held it (its parent)."""
    out = _text(
        _git(
            repo,
            "log",
            "--all",
            "--no-renames",
            "--diff-filter=D",
            "--name-only",
            "-z",
            "--format=%x01%H %P",
        )
    )
    found: dict[str, str] = {}
    for chunk in out.split("\x01")[1:]:
        header, _, names = chunk.partition("\0")
        shas = header.split()
        if len(shas) < 2:  # a root commit deletes nothing
            continue
        parent = shas[1]
        for path in names.lstrip("\n").split("\0"):
            # `git log` lists newest first: the first deletion seen is the latest one.
            if path and path not in found:
                found[path] = parent
    return found


def verify_commit(repo: Path, rev: str) -> str | None:
    """The full id of a commit given by a (possibly abbreviated) hex id, or None."""
    if not HEX_RE.match(rev):
        return None
    done = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", ok=(0, 1, 128))
    value = _text(done).strip()
    return value if done.returncode == 0 and value else None


@functools.lru_cache(maxsize=4096)
def blob_exists(repo: Path, commit: str, path: str) -> bool:
    """Whether `<commit>:<path>` names a file; a full commit id never changes its answer."""
    done = _git(repo, "cat-file", "-e", f"{commit}:{path}", ok=(0, 1, 128))
    return done.returncode == 0


def last_holder(repo: Path, path: str) -> str | None:
    """The newest commit whose tree holds `path`, for a path the index has not seen deleted."""
    done = _git(repo, "rev-list", "-n", "1", "--all", "--", path, ok=(0, 128))
    touched = _text(done).strip()
    if done.returncode != 0 or not touched:
        return None
    if blob_exists(repo, touched, path):
        return touched
    parent = _parent(repo, touched)
    if parent and blob_exists(repo, parent, path):
        return parent
    return None


def _parent(repo: Path, commit: str) -> str | None:
    done = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^1", ok=(0, 1, 128))
    value = _text(done).strip()
    return value if done.returncode == 0 and value else None
