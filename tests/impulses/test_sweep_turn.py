"""The impulse expiry sweep runs once per interval across every process on the home (issue
16): each `serve` offers to sweep every interval, and the turn is a row of the database, so a
second process (or app server) asking within the interval is told no."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from groundnote.domain.clock import FixedClock
from groundnote.impulses import table
from groundnote.impulses.events import LifecyclePayload, lifecycle
from groundnote.impulses.session import Session
from groundnote.impulses.table import Swept, insert_impulse, sweep_if_due
from groundnote.runtime import Runtime
from tests.impulses.conftest import count

PROCESSES = 4
INTERVAL = 1.0
SECONDS = 4.5


def _expiring(runtime: Runtime, expires_at: str) -> None:
    with runtime.home.instance.write() as conn:
        s = Session(conn, "acme", runtime.home.clock.instant(), runtime.config.impulses)
        insert_impulse(s, shape="relatedConceptsResult", pointer={"q": 1}, expires_at=expires_at)


def _turn(runtime: Runtime) -> tuple[str, int]:
    with runtime.home.instance.read() as conn:
        row = conn.execute("SELECT last_at, runs FROM impulse_sweep").fetchone()
    return str(row[0]), int(row[1])


def _moment(instant: str) -> datetime:
    return datetime.fromisoformat(instant.replace("Z", "+00:00"))


def test_the_turn_is_taken_once_per_interval(runtime: Runtime, clock: FixedClock) -> None:
    _expiring(runtime, "2026-11-30T09:00:01.000Z")
    heard: list[LifecyclePayload] = []
    off = lifecycle(runtime.home).on("impulse:expired", heard.append)
    clock.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    assert sweep_if_due(runtime.home, 300) == Swept("2026-11-30T10:00:00.000Z", 1)
    assert len(heard) == 1
    _expiring(runtime, "2026-11-30T10:00:30.000Z")
    clock.moment += timedelta(seconds=299)
    assert sweep_if_due(runtime.home, 300) is None  # swept 299 s ago: not this one's turn
    assert count(runtime, "impulse") == 1
    clock.moment += timedelta(seconds=1)
    assert sweep_if_due(runtime.home, 300) == Swept("2026-11-30T10:05:00.000Z", 1)
    assert sweep_if_due(runtime.home, 300) is None
    assert _turn(runtime) == ("2026-11-30T10:05:00.000Z", 2)
    assert len(heard) == 2
    off()


def test_a_failed_sweep_gives_the_turn_back(
    runtime: Runtime, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock.moment = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    _expiring(runtime, "2026-11-30T09:00:01.000Z")
    before = _turn(runtime)

    def fail(*_: object) -> list[object]:
        raise RuntimeError("the delete failed")

    with monkeypatch.context() as patched:
        patched.setattr(table, "_delete_expired", fail)
        with pytest.raises(RuntimeError):
            sweep_if_due(runtime.home, 300)
    assert _turn(runtime) == before  # rolled back with the sweep: the next offer sweeps
    assert sweep_if_due(runtime.home, 300) == Swept("2026-11-30T10:00:00.000Z", 1)


_OFFER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from groundnote.impulses.table import sweep_if_due
    from groundnote.runtime import open_runtime

    runtime = open_runtime(Path(sys.argv[1]))
    offers = 0
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        offers += 1
        swept = sweep_if_due(runtime.home, float(sys.argv[3]))
        if swept is not None:
            print("swept", swept.at, flush=True)
        time.sleep(0.02)
    runtime.close()
    print("offers", offers)
    """
)


def test_several_processes_sweep_once_per_interval_between_them(
    runtime: Runtime, home_path: Path
) -> None:
    _, start_runs = _turn(runtime)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _OFFER, str(home_path), str(SECONDS), str(INTERVAL)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    offers = 0
    turns: list[str] = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        lines = [line.split() for line in out.splitlines()]
        offers += sum(int(n) for word, n in lines if word == "offers")
        mine = [at for word, at in lines if word == "swept"]
        turns += mine
    _, end_runs = _turn(runtime)
    assert end_runs - start_runs == len(turns)  # every sweep is one the row counted
    assert len(turns) >= 3 and offers > 10 * len(turns)  # each process offered many times
    moments = sorted(_moment(at) for at in turns)
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(moments)]
    assert min(gaps) >= INTERVAL, gaps  # never twice within an interval, whoever swept
