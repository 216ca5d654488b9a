"""The knowledge index: a projection of one checkout into the scope file, refreshed by hash.

What it holds (migration knowledge/0001): the records, the problems of files that could not be
read, the ledger's entries, the files of the tree typed as test / ADR / issue / session record,
every reachable commit, and the last holder of every path a commit deleted. `refresh` re-reads
only record and ledger files whose content hash changed and re-asks git only when HEAD or a
ref moved; `rebuild` empties the tables first. Both end in the same rows, which the tests hold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from groundnote.config import KnowledgeConfig
from groundnote.domain.progress import Progress
from groundnote.knowledge import gitrepo
from groundnote.knowledge.ledger import LedgerEntry, is_ledger_file, parse_ledger
from groundnote.knowledge.records import Problem, Record, parse_record, record_source_class
from groundnote.store.database import Database
from groundnote.store.sql import Connection

__all__ = [
    "TABLES",
    "Derivation",
    "IndexReport",
    "Progress",
    "derivation",
    "is_built",
    "numbered_key",
    "object_row",
    "refresh",
    "source_files",
]

# Children before parents, so that a DELETE never meets a foreign key.
TABLES = (
    "knowledge_problem",
    "knowledge_ledger",
    "knowledge_record",
    "knowledge_source_file",
    "knowledge_object",
    "knowledge_commit",
    "knowledge_history",
    "knowledge_meta",
)


@dataclass(frozen=True)
class IndexReport:
    """What a refresh or rebuild did."""

    records: int
    problems: int
    reread: int  # record and ledger files parsed because their hash changed
    removed: int  # record and ledger files gone from the tree
    files: int  # files of the tree
    commits: int
    git_reread: bool


@dataclass
class Derivation:
    """How the checkout differs from the index, without touching the index."""

    indexed: bool
    head_indexed: str | None
    head: str | None
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    unchanged: int = 0
    history_moved: bool = False


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def numbered_key(stem: str) -> str:
    """`0007-use-sqlite` and `7` both name ADR 7; a stem without a number names itself."""
    digits = ""
    for char in stem:
        if not char.isdigit():
            break
        digits += char
    return str(int(digits)) if digits else stem


def object_row(path: str, cfg: KnowledgeConfig) -> tuple[str, int, str | None, str | None]:
    """(path, is_test, kind, key) of one file of the tree."""
    pure = PurePosixPath(path)
    parent = str(pure.parent)
    is_test = int(any(fnmatch(path, pattern) for pattern in cfg.test_patterns))
    if pure.suffix == ".md" and parent in cfg.adr_dirs:
        return path, is_test, "adr", numbered_key(pure.stem)
    if pure.suffix == ".md" and parent in cfg.issue_dirs:
        return path, is_test, "issue", numbered_key(pure.stem)
    if parent == cfg.sessions:
        return path, is_test, "session", pure.stem
    return path, is_test, None, None


def source_files(paths: Iterable[str], cfg: KnowledgeConfig) -> dict[str, str]:
    """The record and ledger files among `paths`: path → `record` | `ledger`."""
    found = {}
    for path in paths:
        if record_source_class(path, cfg.root):
            found[path] = "record"
        elif is_ledger_file(path, cfg.ledger):
            found[path] = "ledger"
    return found


def _config_hash(repo: Path, cfg: KnowledgeConfig) -> str:
    return _sha256(f"{repo}\n{cfg.model_dump_json()}".encode())


def is_built(conn: Connection, repo: Path, cfg: KnowledgeConfig) -> bool:
    """Whether the index holds this checkout, read with these folders."""
    row = conn.execute("SELECT value FROM knowledge_meta WHERE key = 'config'").fetchone()
    return row is not None and row["value"] == _config_hash(repo, cfg)


def _meta(conn: Connection) -> dict[str, str]:
    return {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM knowledge_meta")}


@dataclass
class _Parsed:
    kind: str
    sha256: str
    record: Record | None = None
    entries: list[LedgerEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _parse(path: str, kind: str, data: bytes, cfg: KnowledgeConfig) -> _Parsed:
    parsed = _Parsed(kind, _sha256(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        parsed.problems.append(Problem(path, line, "not UTF-8 text; save the file as UTF-8"))
        return parsed
    if kind == "ledger":
        parsed.entries, parsed.problems = parse_ledger(path, text)
        return parsed
    source_class = record_source_class(path, cfg.root)
    assert source_class is not None
    result = parse_record(path, text, source_class)
    if isinstance(result, Record):
        parsed.record = result
    else:
        parsed.problems = result
    return parsed


def _history(repo: Path, missing: list[str], head: str | None) -> dict[str, str]:
    history = gitrepo.deleted_paths(repo)
    for path in missing:  # tracked, deleted from the working tree, not yet committed
        if head and gitrepo.blob_exists(repo, head, path):
            history[path] = head
    return history


def refresh(
    db: Database,
    repo: Path,
    cfg: KnowledgeConfig,
    *,
    full: bool = False,
    progress: Progress | None = None,
    now: str = "",
) -> IndexReport:
    """Bring the index in line with the checkout; `full` empties it first (a rebuild)."""
    tick = progress or (lambda phase, done, total: None)
    present, missing = gitrepo.tree_files(repo)
    wanted = source_files(present, cfg)
    with db.read() as conn:
        meta = _meta(conn)
        known = {
            r["path"]: r["sha256"]
            for r in conn.execute("SELECT path, sha256 FROM knowledge_source_file")
        }
        indexed_objects = {r["path"] for r in conn.execute("SELECT path FROM knowledge_object")}
    config_hash = _config_hash(repo, cfg)
    if meta.get("config") != config_hash:
        full = True  # another checkout or other folders: nothing indexed still holds
    if full:
        meta, known, indexed_objects = {}, {}, set()

    parsed: dict[str, _Parsed] = {}
    for n, (path, kind) in enumerate(sorted(wanted.items()), start=1):
        data = (repo / path).read_bytes()
        if known.get(path) != _sha256(data):
            parsed[path] = _parse(path, kind, data, cfg)
        if n % 500 == 0 or n == len(wanted):
            tick("files", n, len(wanted))
    gone = sorted(set(known) - set(wanted))

    head = gitrepo.head(repo)
    git_print = gitrepo.fingerprint(repo)
    missing_print = _sha256("\0".join(missing).encode())
    git_reread = meta.get("git") != git_print or meta.get("missing") != missing_print
    commits: list[str] = []
    history: dict[str, str] = {}
    if git_reread:
        tick("git", 0, 2)
        commits = gitrepo.commits(repo)
        tick("git", 1, 2)
        history = _history(repo, missing, head)
        tick("git", 2, 2)

    with db.write() as conn:
        if full:
            for table in TABLES:
                conn.execute(f"DELETE FROM {table}")
        _write_objects(conn, present, indexed_objects, cfg)
        conn.executemany(
            "DELETE FROM knowledge_source_file WHERE path = ?", [(p,) for p in [*gone, *parsed]]
        )
        for n, (path, item) in enumerate(sorted(parsed.items()), start=1):
            _write_parsed(conn, path, item)
            if n % 500 == 0 or n == len(parsed):
                tick("write", n, len(parsed))
        if git_reread:
            conn.execute("DELETE FROM knowledge_commit")
            conn.executemany(
                "INSERT INTO knowledge_commit (sha) VALUES (?)", [(c,) for c in commits]
            )
            conn.execute("DELETE FROM knowledge_history")
            conn.executemany(
                "INSERT INTO knowledge_history (path, holder) VALUES (?, ?)",
                sorted(history.items()),
            )
        new_meta = {
            "config": config_hash,
            "repo": str(repo),
            "git": git_print,
            "missing": missing_print,
            "head": head or "",
            "refreshed_at": now,
        }
        conn.executemany(
            "INSERT INTO knowledge_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            sorted(new_meta.items()),
        )
        records = conn.execute("SELECT count(*) FROM knowledge_record").fetchone()[0]
        problems = conn.execute("SELECT count(*) FROM knowledge_problem").fetchone()[0]
        commit_count = conn.execute("SELECT count(*) FROM knowledge_commit").fetchone()[0]
    return IndexReport(
        records=records,
        problems=problems,
        reread=len(parsed),
        removed=len(gone),
        files=len(present),
        commits=commit_count,
        git_reread=git_reread,
    )


def _write_objects(
    conn: Connection, present: list[str], indexed: set[str], cfg: KnowledgeConfig
) -> None:
    current = set(present)
    conn.executemany(
        "DELETE FROM knowledge_object WHERE path = ?", [(p,) for p in sorted(indexed - current)]
    )
    conn.executemany(
        "INSERT INTO knowledge_object (path, is_test, kind, key) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET is_test = excluded.is_test, kind = excluded.kind, "
        "key = excluded.key",
        [object_row(p, cfg) for p in sorted(current - indexed)],
    )


def _write_parsed(conn: Connection, path: str, item: _Parsed) -> None:
    conn.execute(
        "INSERT INTO knowledge_source_file (path, kind, sha256) VALUES (?, ?, ?)",
        (path, item.kind, item.sha256),
    )
    conn.executemany(
        "INSERT INTO knowledge_problem (path, line, message) VALUES (?, ?, ?) "
        "ON CONFLICT (path, line, message) DO NOTHING",
        [(p.path, p.line, p.message) for p in item.problems],
    )
    conn.executemany(
        "INSERT INTO knowledge_ledger (kind, id, path, line) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (kind, id, path, line) DO NOTHING",
        [(e.kind, e.id, e.path, e.line) for e in item.entries],
    )
    r = item.record
    if r is not None:
        conn.execute(
            "INSERT INTO knowledge_record (path, id, source_class, class, status, epistemics, "
            "origin, date, title, superseded_by, derived_from, relations) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                r.path,
                r.id,
                r.source_class,
                r.klass,
                r.status,
                r.epistemics,
                r.origin,
                r.date,
                r.title,
                r.superseded_by,
                json.dumps(list(r.derived_from)),
                json.dumps([{"type": x.type, "target": x.target} for x in r.relations]),
            ),
        )


def derivation(db: Database, repo: Path, cfg: KnowledgeConfig) -> Derivation:
    """Which record and ledger files changed, appeared or went since the index was built."""
    present, _ = gitrepo.tree_files(repo)
    wanted = source_files(present, cfg)
    with db.read() as conn:
        meta = _meta(conn)
        known = {
            r["path"]: r["sha256"]
            for r in conn.execute("SELECT path, sha256 FROM knowledge_source_file")
        }
    indexed = meta.get("config") == _config_hash(repo, cfg)
    if not indexed:
        known = {}
    out = Derivation(
        indexed=indexed,
        head_indexed=(meta.get("head") or None) if indexed else None,
        head=gitrepo.head(repo),
        gone=sorted(set(known) - set(wanted)),
        history_moved=indexed and meta.get("git") != gitrepo.fingerprint(repo),
    )
    for path in sorted(wanted):
        if path not in known:
            out.new.append(path)
        elif known[path] != _sha256((repo / path).read_bytes()):
            out.changed.append(path)
        else:
            out.unchanged += 1
    return out
