"""All subsystems of the project store share one FIFO write gate: a small writer is served in
arrival order behind a saturating one, never starved."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from groundnote.context.projectdb import ProjectDB
from groundnote.context.sources import StateRecord
from groundnote.context.vocabulary import Scope, block_node
from groundnote.domain.clock import FixedClock
from groundnote.store import WriteGateReentrant

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def _record(n: int) -> StateRecord:
    return StateRecord.model_validate(
        {
            "document": "doc",
            "unit": f"u{n}",
            "variant": "en",
            "decision": "signed_off",
            "target_hash": "t",
            "source_basis": "b",
            "by": "person:ruth",
            "at": "2026-11-30T09:00:00Z",
        }
    )


def test_a_small_writer_is_not_starved_by_a_saturating_one(tmp_path: Path) -> None:
    store = ProjectDB.open(tmp_path, CLOCK)
    scope = Scope(project="big")
    nodes = [block_node(scope, f"k{i}", "doc.md") for i in range(3000)]
    big_done = 0
    stop = threading.Event()

    def saturate() -> None:
        nonlocal big_done
        while not stop.is_set():
            store.graph.replace_scope(scope, nodes, [])
            big_done += 1

    thread = threading.Thread(target=saturate)
    thread.start()
    try:
        while big_done < 2:
            time.sleep(0.005)
        overtaken = []
        for n in range(5):
            arrived = big_done
            store.working_set.stage(_record(n))
            overtaken.append(big_done - arrived)
    finally:
        stop.set()
        thread.join()
        store.close()
    # FIFO: at most the transaction running and the one already queued go first.
    assert max(overtaken) <= 2, overtaken


def test_a_nested_write_reports_reentrance(tmp_path: Path) -> None:
    store = ProjectDB.open(tmp_path, CLOCK)
    try:
        with store.db.write(), pytest.raises(WriteGateReentrant):
            store.working_set.stage(_record(1))
    finally:
        store.close()
