"""`groundnote backup` while another process writes, `restore` into a new home, `check` clean;
a backup killed midway leaves no target (and says so next time), never a half-written one."""

from __future__ import annotations

import json
import multiprocessing
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundnote.auth import Right, create_grant
from groundnote.runtime import open_runtime
from groundnote.store import verify_backup
from groundnote.surfaces.cli.main import cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.sqlite_only(
        "backup and restore copy SQLite files; on PostgreSQL they refuse and name pg_dump"
    ),
]


def _writer(home: str, token: str, acks: str, stop: str) -> None:
    """Create entities until `stop` exists; each acknowledged id is appended to `acks`."""
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    create = runtime.registry.get("graph.entity_create")
    with open(acks, "a", encoding="utf-8") as log:
        while not Path(stop).exists():
            raw = {"scope": "shared", "type": "organisation", "name": uuid.uuid4().hex[:20]}
            out = runtime.invoke(create, raw, principal=principal, channel="api")
            log.write(out.model_dump(mode="json")["entity"]["id"] + "\n")
            log.flush()
    runtime.close()


def _home_with_writer_grant(home: Path) -> str:
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope("shared")
    _, token = create_grant(
        runtime.home.instance,
        "w",
        rights={"shared": Right.PROPOSE},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    runtime.close()
    return token


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_backup_while_another_process_writes_then_restore_and_check(tmp_path: Path) -> None:
    home, acks, stop = tmp_path / "home", tmp_path / "acks", tmp_path / "stop"
    token = _home_with_writer_grant(home)
    acks.touch()
    writer = multiprocessing.get_context("spawn").Process(
        target=_writer, args=(str(home), token, str(acks), str(stop))
    )
    writer.start()
    try:
        while len(_lines(acks)) < 20:  # the writer is under way
            assert writer.is_alive()
            time.sleep(0.05)
        before = _lines(acks)
        runner = CliRunner()
        made = runner.invoke(cli, ["--home", str(home), "backup", str(tmp_path / "b")])
        assert made.exit_code == 0, made.output
        during = len(_lines(acks))
    finally:
        stop.touch()
        writer.join(timeout=60)
    assert writer.exitcode == 0
    assert during > len(before)  # writes went on while the backup ran
    assert verify_backup(tmp_path / "b") == []
    manifest = json.loads((tmp_path / "b" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert sorted(manifest["files"]) == ["instance.db", "scopes/shared.db"]

    restored = tmp_path / "restored"
    back = runner.invoke(cli, ["restore", str(tmp_path / "b"), "--home", str(restored)])
    assert back.exit_code == 0, back.output
    assert "check: every file ok" in back.output
    assert runner.invoke(cli, ["--home", str(restored), "check"]).exit_code == 0
    with sqlite3.connect(restored / "scopes" / "shared.db") as conn:
        ids = {r[0] for r in conn.execute("SELECT id FROM entity")}
    conn.close()
    assert set(before) <= ids  # every write acknowledged before the backup began is in it
    # The grant came along: the writer's token works on the restored home.
    again = open_runtime(restored, environ={})
    assert again.authenticate(token) is not None
    again.close()

    refused = runner.invoke(cli, ["restore", str(tmp_path / "b"), "--home", str(home)])
    assert refused.exit_code == 1
    assert "is not empty: it holds" in refused.output and "instance.db" in refused.output


def test_restore_refuses_a_directory_that_is_no_complete_backup(tmp_path: Path) -> None:
    _home_with_writer_grant(tmp_path / "home")
    runner = CliRunner()
    assert (
        runner.invoke(
            cli, ["--home", str(tmp_path / "home"), "backup", str(tmp_path / "b")]
        ).exit_code
        == 0
    )
    with (tmp_path / "b" / "scopes" / "shared.db").open("ab") as f:
        f.write(b"x")
    bad = runner.invoke(cli, ["restore", str(tmp_path / "b"), "--home", str(tmp_path / "new")])
    assert bad.exit_code == 1
    assert "scopes/shared.db differs from its sha256" in bad.output
    assert not (tmp_path / "new").exists()
    taken = runner.invoke(cli, ["--home", str(tmp_path / "home"), "backup", str(tmp_path / "b")])
    assert taken.exit_code == 1 and "exists already" in taken.output


def test_a_killed_backup_leaves_no_target_or_a_complete_one(tmp_path: Path) -> None:
    home, target = tmp_path / "home", tmp_path / "b"
    _home_with_writer_grant(home)
    # Some bulk, so the copy takes long enough to be caught midway.
    with sqlite3.connect(home / "scopes" / "shared.db") as conn:
        conn.execute("CREATE TABLE bulk (b BLOB)")
        conn.executemany("INSERT INTO bulk VALUES (randomblob(1048576))", [()] * 64)
    conn.close()
    command = [sys.executable, "-m", "groundnote", "--home", str(home), "backup", str(target)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while process.poll() is None and not list(tmp_path.glob(".b.partial-*")):
        time.sleep(0.001)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    if target.exists():  # it had finished: then it is whole
        assert verify_backup(target) == []
        return
    (partial,) = tmp_path.glob(".b.partial-*")  # only the hidden directory, never the target
    runner = CliRunner()
    refused = runner.invoke(cli, ["restore", str(partial), "--home", str(tmp_path / "new")])
    assert refused.exit_code == 1
    assert "is not a complete backup" in refused.output and "interrupted" in refused.output
    redo = runner.invoke(cli, ["--home", str(home), "backup", str(target)])
    assert redo.exit_code == 0, redo.output
    assert "left by an interrupted backup" in redo.output
    assert verify_backup(target) == []
    assert not list(tmp_path.glob(".b.partial-*"))
