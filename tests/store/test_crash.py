"""SIGKILL serve under concurrent writers from several processes: nothing acknowledged is
lost, and `check` finds the store whole (issue 15; bench/crash.py prints the full run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.crash import run

pytestmark = pytest.mark.slow


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    out = run(rounds=3, writers=3, seed=7, root=tmp_path)
    assert out.acknowledged > 0  # the writers did write while serve ran
    assert out.lost == []
    assert out.check_ok, out.check_output
