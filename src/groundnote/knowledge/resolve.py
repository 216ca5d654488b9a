"""Resolution of a record's references: object, external, historical or missing (seed 004).

A reference is `<prefix>:<value>`. Which reader answers depends on the prefix:

    prefix                  reader                                     resolves as
    knowledge, record       the index's records                        object   majordomus://knowledge/<id>
    rule, source, entity    the scope's own tables (entity: if graph)  object   majordomus://<prefix>/<id>
    adr, issue              the index's files in knowledge.adr_dirs …  object   majordomus://<prefix>/<key>
    file, test              the tree                                   object   <path>
                            git history, or a pin `<path>@<commit>`    historical <commit>:<path>
    commit                  git                                        external git:<sha>
    session                 the ledger, then the tracked sessions      external ledger:<path>:<line> | <path>
    task, decision          the ledger (Groundnote keeps no task store) external ledger:<path>:<line>

Anything else is `missing` with the reason. `task:none` and `decision:none` are refused by
name. An `authoritative` resolver trusts the index's "no" (it was refreshed just before); a
lazy one, used by `record` between refreshes, asks the tree and git before saying `missing`,
so a stale index never makes a present reference dangle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Literal

from groundnote.config import KnowledgeConfig
from groundnote.knowledge import gitrepo
from groundnote.knowledge.index import numbered_key
from groundnote.knowledge.records import RECORD_ID_RE, SOURCE_CLASSES
from groundnote.store.sql import Connection

__all__ = ["PREFIXES", "URI_SCHEME", "Resolution", "Resolver", "record_uri"]

URI_SCHEME = "majordomus"
PREFIXES = (
    "adr",
    "commit",
    "decision",
    "entity",
    "file",
    "issue",
    "knowledge",
    "record",
    "rule",
    "session",
    "source",
    "task",
    "test",
)
_RECORD_ID = re.compile(RECORD_ID_RE)
Outcome = Literal["object", "external", "historical", "missing"]


def record_uri(record_id: str) -> str:
    return f"{URI_SCHEME}://knowledge/{record_id}"


@dataclass(frozen=True)
class Resolution:
    resolution: Outcome
    target: str | None = None
    reason: str | None = None

    @property
    def resolves(self) -> bool:
        return self.resolution != "missing"


def _missing(reason: str) -> Resolution:
    return Resolution("missing", None, reason)


class Resolver:
    def __init__(
        self, conn: Connection, repo: Path, cfg: KnowledgeConfig, *, authoritative: bool
    ) -> None:
        self.conn = conn
        self.repo = repo
        self.cfg = cfg
        self.authoritative = authoritative

    def resolve(self, reference: str) -> Resolution:
        prefix, sep, value = reference.partition(":")
        if not sep or not value:
            return _missing("not a reference: write `<prefix>:<value>`, e.g. `file:README.md`")
        if prefix not in PREFIXES:
            return _missing(f"unknown prefix `{prefix}`; known: {', '.join(PREFIXES)}")
        if prefix in ("task", "decision") and value == "none":
            return _missing(f"`none` is not a {prefix}")
        if prefix in ("task", "decision", "session"):
            return self._ledger(prefix, value)
        if prefix == "commit":
            found = self._commit(value)
            if isinstance(found, Resolution):
                return found
            return Resolution("external", f"git:{found}")
        if prefix in ("file", "test"):
            return self._file(prefix, value)
        if prefix in ("knowledge", "record"):
            return self._record(value)
        if prefix in ("adr", "issue"):
            return self._numbered(prefix, value)
        return self._scope_table(prefix, value)

    # -- readers -------------------------------------------------------------------------

    def _ledger(self, kind: str, value: str) -> Resolution:
        row = self.conn.execute(
            "SELECT path, line FROM knowledge_ledger WHERE kind = ? AND id = ? "
            "ORDER BY path, line LIMIT 1",
            (kind, value),
        ).fetchone()
        if row is not None:
            return Resolution("external", f"ledger:{row['path']}:{row['line']}")
        if kind == "session":
            row = self.conn.execute(
                "SELECT path FROM knowledge_object WHERE kind = 'session' AND key = ? "
                "ORDER BY path LIMIT 1",
                (value,),
            ).fetchone()
            if row is not None:
                return Resolution("external", row["path"])
        where = f"the ledger ({self.cfg.ledger})"
        if kind == "session":
            where += f" nor the session records ({self.cfg.sessions})"
        return _missing(f"no {kind} `{value}` in {where}")

    def _commit(self, value: str) -> str | Resolution:
        rev = value.lower()
        if not gitrepo.HEX_RE.match(rev):
            return _missing(f"`{value}` is not a commit id (4 to 40 hexadecimal digits)")
        rows = self.conn.execute(
            "SELECT sha FROM knowledge_commit WHERE sha >= ? AND sha < ? LIMIT 2",
            (rev, rev + "g"),
        ).fetchall()
        if len(rows) > 1:
            return _missing(f"`{value}` names more than one commit; give more digits")
        if rows:
            return str(rows[0]["sha"])
        if not self.authoritative:
            full = gitrepo.verify_commit(self.repo, rev)
            if full:
                return full
        return _missing(f"no commit `{value}` in the repository's history")

    def _file(self, prefix: str, value: str) -> Resolution:
        path_text, pin = value, None
        head, at, tail = value.rpartition("@")
        if at and gitrepo.HEX_RE.match(tail.lower()):
            path_text, pin = head, tail
        pure = PurePosixPath(path_text)
        if not path_text or pure.is_absolute() or ".." in pure.parts:
            return _missing(f"`{path_text}` is not a path inside the checkout")
        path = str(pure)
        if prefix == "test" and not any(fnmatch(path, p) for p in self.cfg.test_patterns):
            return _missing(f"`{path}` is not a test file (see knowledge.test_patterns)")
        if pin is not None:
            found = self._commit(pin)
            if isinstance(found, Resolution):
                return found
            if gitrepo.blob_exists(self.repo, found, path):
                return Resolution("historical", f"{found}:{path}")
            return _missing(f"commit `{pin}` holds no file `{path}`")
        if self._in_tree(path):
            return Resolution("object", path)
        row = self.conn.execute(
            "SELECT holder FROM knowledge_history WHERE path = ?", (path,)
        ).fetchone()
        holder = row["holder"] if row else None
        if holder is None and not self.authoritative:
            holder = gitrepo.last_holder(self.repo, path)
        if holder:
            return Resolution("historical", f"{holder}:{path}")
        return _missing(f"`{path}` is neither in the tree nor in git history")

    def _in_tree(self, path: str) -> bool:
        on_disk = (self.repo / path).is_file()
        if not on_disk or not self.authoritative:
            return on_disk
        indexed = self.conn.execute(
            "SELECT 1 FROM knowledge_object WHERE path = ?", (path,)
        ).fetchone()
        return indexed is not None  # an ignored file is on disk but not of the tree

    def _record(self, value: str) -> Resolution:
        found = (
            self.conn.execute("SELECT 1 FROM knowledge_record WHERE id = ?", (value,)).fetchone()
            is not None
        )
        if not found and not self.authoritative and _RECORD_ID.fullmatch(value):
            root = self.repo / self.cfg.root
            found = any((root / c / f"{value}.md").is_file() for c in SOURCE_CLASSES)
        if not found:
            return _missing(f"no knowledge record `{value}` under {self.cfg.root}")
        return Resolution("object", record_uri(value))

    def _numbered(self, kind: str, value: str) -> Resolution:
        row = self.conn.execute(
            "SELECT path FROM knowledge_object WHERE kind = ? AND key = ? ORDER BY path LIMIT 1",
            (kind, numbered_key(value)),
        ).fetchone()
        if row is None:
            folders = ", ".join(self.cfg.adr_dirs if kind == "adr" else self.cfg.issue_dirs)
            return _missing(f"no {kind} `{value}` in {folders}")
        return Resolution("object", f"{URI_SCHEME}://{kind}/{PurePosixPath(row['path']).stem}")

    def _scope_table(self, table: str, value: str) -> Resolution:
        row = self.conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (value,)).fetchone()
        if row is None:
            return _missing(f"no {table} `{value}` in this scope")
        return Resolution("object", f"{URI_SCHEME}://{table}/{value}")
