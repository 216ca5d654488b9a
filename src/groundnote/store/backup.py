"""`groundnote backup` and `restore`: a consistent copy of a home's truth, whole or not at all.

What is copied: `groundnote.json`, `instance.db`, every registered scope's file and, where the
home is a content project's `.groundnote`, `work/store.db` (staged unit state). Not copied:
`work/cache/` (free to delete) and `work/serve.json` (the address serve last ran on).

Each database is copied with SQLite's online backup API in one step, which reads inside one
read transaction: the copy is that file as of one commit, every write acknowledged before the
copy began is in it, and writers in other processes go on meanwhile (WAL). The files are
copied one after the other (instance.db first, whose registry names the scope files), so a
backup is consistent per file, as a home is (each file has its own transactions).

Everything is written into a hidden sibling directory and renamed to the target at the end,
after `MANIFEST.json` (each file's size and sha256) is written and synced, so an interrupted
backup leaves no target, only the hidden directory, which the next backup names and removes.
A directory with a manifest whose files match it is complete; `verify_backup` says which file not.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from groundnote.domain.errors import ValidationFailed
from groundnote.domain.progress import Progress

__all__ = ["MANIFEST", "BackupReport", "backup_home", "leftovers", "restore_home", "verify_backup"]

MANIFEST = "MANIFEST.json"
_FORMAT = "groundnote-backup/1"
_PARTIAL = ".partial-"


@dataclass(frozen=True)
class BackupReport:
    target: Path
    files: dict[str, int]  # relative name → bytes
    removed_leftovers: list[Path]


def leftovers(target: Path) -> list[Path]:
    """Hidden directories interrupted backups to `target` left behind (not those of a backup
    still running: the directory's name ends in its process id)."""
    parent = target.absolute().parent
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.glob(f".{target.name}{_PARTIAL}*") if not _running(p.name))


def _running(name: str) -> bool:
    pid = name.rsplit(_PARTIAL, 1)[-1]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _scope_files(instance_copy: Path) -> list[str]:
    """The scope files the copied registry names: read from the copy, so a scope created
    after instance.db was copied is in neither the copied registry nor the backup."""
    with sqlite3.connect(instance_copy) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM scope ORDER BY name")]
    conn.close()
    return [f"scopes/{name}.db" for name in names]


def _copy_database(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(source)
    dst = sqlite3.connect(target)
    try:
        src.execute("PRAGMA busy_timeout = 10000")
        # One step (pages=-1): one read transaction, so writers elsewhere never restart it.
        src.backup(dst, pages=-1)
        # A single file, whatever journal mode the source runs in.
        dst.execute("PRAGMA journal_mode = DELETE")
    finally:
        dst.close()
        src.close()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_home(home: Path, target: Path, progress: Progress | None = None) -> BackupReport:
    """Copy the home's truth to `target`, which must not exist; whole or not at all."""
    if target.exists():
        raise ValidationFailed(
            f"the backup target {target} exists already",
            remedy="Name a new directory; a backup never writes over another.",
        )
    removed = leftovers(target)
    for old in removed:
        shutil.rmtree(old)
    target.absolute().parent.mkdir(parents=True, exist_ok=True)
    partial = target.absolute().parent / f".{target.name}{_PARTIAL}{os.getpid()}"
    partial.mkdir()
    files: dict[str, str] = {}
    sizes: dict[str, int] = {}

    def copy(name: str) -> None:
        _copy_database(home / name, partial / name)
        files[name] = _sha256(partial / name)
        sizes[name] = (partial / name).stat().st_size

    copy("instance.db")
    names = _scope_files(partial / "instance.db")
    if (home / "work" / "store.db").is_file():
        names.append("work/store.db")
    for done, name in enumerate(names):
        if progress is not None:
            progress("files", done, len(names))
        copy(name)
    config = home / "groundnote.json"
    if config.is_file():
        shutil.copy2(config, partial / config.name)
        files[config.name] = _sha256(partial / config.name)
        sizes[config.name] = (partial / config.name).stat().st_size
    if progress is not None:
        progress("files", len(names), len(names))
    for name in files:
        _sync(partial / name)
    manifest = {
        "format": _FORMAT,
        "files": {n: {"bytes": sizes[n], "sha256": files[n]} for n in sorted(files)},
    }
    (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    _sync(partial / MANIFEST)
    partial.rename(target)
    _sync(target.absolute().parent)
    return BackupReport(target, sizes, removed)


def verify_backup(backup: Path) -> list[str]:
    """What makes `backup` not a complete backup (none: complete)."""
    manifest_path = backup / MANIFEST
    if not manifest_path.is_file():
        return [f"{backup} holds no {MANIFEST}: it is not a backup, or one that was interrupted"]
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if manifest.get("format") != _FORMAT:
        return [f"{manifest_path} is not a {_FORMAT} manifest"]
    problems = []
    for name, entry in manifest["files"].items():
        path = backup / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif _sha256(path) != entry["sha256"]:
            problems.append(f"{name} differs from its sha256 in the manifest")
    return problems


def restore_home(backup: Path, home: Path) -> list[str]:
    """Copy a complete backup into `home`, which must be empty or new; the files restored."""
    problems = verify_backup(backup)
    if problems:
        raise ValidationFailed(
            f"{backup} is not a complete backup: " + "; ".join(problems),
            remedy="Restore from a directory `groundnote backup` finished (it has a MANIFEST.json "
            "whose files match).",
        )
    if home.exists() and any(home.iterdir()):
        there = sorted(p.name for p in home.iterdir())
        shown = ", ".join(there[:8]) + (", …" if len(there) > 8 else "")
        raise ValidationFailed(
            f"the home {home} is not empty: it holds {shown}",
            remedy="Restore into a new or empty directory; a restore never mixes with a home.",
        )
    manifest = json.loads((backup / MANIFEST).read_text(encoding="utf-8"))
    names = sorted(manifest["files"])
    home.absolute().parent.mkdir(parents=True, exist_ok=True)
    partial = home.absolute().parent / f".{home.name}{_PARTIAL}{os.getpid()}"
    partial.mkdir()
    for name in names:
        (partial / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(backup / name, partial / name)
        _sync(partial / name)
    for folder in ("scopes", "work/cache"):
        (partial / folder).mkdir(parents=True, exist_ok=True)
    if home.exists():
        home.rmdir()  # empty, as checked; the rename puts the whole home in its place
    partial.rename(home)
    return names
