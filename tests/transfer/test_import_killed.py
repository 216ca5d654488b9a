"""SIGKILL during `groundnote import scope` leaves the scope as empty as it was, `check` finds
nothing wrong, and the import run again completes (issue 17: complete or empty, never
half-written)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bench.transfer import synthetic_export

from groundnote.runtime import INSTANCE_SUBSYSTEMS, SCOPE_TRANSFER, open_runtime
from groundnote.store import check_home

pytestmark = pytest.mark.slow


def _groundnote(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "groundnote", "--home", str(home), *args]


def _truth_rows(home: Path) -> int:
    runtime = open_runtime(home, environ={})
    try:
        with runtime.home.scope_db("copy").read() as conn:
            return sum(
                conn.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0]
                for t in SCOPE_TRANSFER.tables
            )
    finally:
        runtime.close()


def test_a_killed_import_leaves_the_scope_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run(_groundnote(home, "scope", "create", "copy"), check=True, capture_output=True)
    file = tmp_path / "scope.jsonl"
    file.write_text("".join(f"{line}\n" for line in synthetic_export("copy", 30_000)), "utf-8")
    env = {**os.environ, "COLUMNS": "100"}
    wal = home / "scopes" / "copy.db-wal"
    # Killed once its uncommitted rows fill the write-ahead log past 1 MB, and past 8 MB: each
    # time mid-transaction, with thousands of rows written and none committed.
    for spilled in (1_000_000, 8_000_000):
        importer = subprocess.Popen(
            _groundnote(home, "import", "scope", str(file), "--scope", "copy"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        deadline = time.monotonic() + 120
        while not (wal.exists() and wal.stat().st_size > spilled):
            assert importer.poll() is None, "the import ended before it was killed"
            assert time.monotonic() < deadline, "the import wrote nothing in two minutes"
            time.sleep(0.01)
        importer.send_signal(signal.SIGKILL)
        importer.wait()
        assert _truth_rows(home) == 0, f"killed at {spilled} bytes of log, the scope holds rows"
        runtime = open_runtime(home, environ={})
        try:
            problems = check_home(runtime.home, INSTANCE_SUBSYSTEMS)
        finally:
            runtime.close()
        assert not any(problems.values()), problems
    done = subprocess.run(
        _groundnote(home, "import", "scope", str(file), "--scope", "copy"),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "30000 entity" in done.stdout
    again = tmp_path / "again.jsonl"
    subprocess.run(
        _groundnote(home, "export", "scope", "--scope", "copy", str(again)),
        check=True,
        capture_output=True,
    )
    assert again.read_bytes() == file.read_bytes()
