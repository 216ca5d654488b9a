"""The write gate serves writers in arrival order and refuses a nested write."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from groundnote.store import SqliteDatabase, WriteGate, WriteGateReentrant
from groundnote.store.gate import GateTimeout


def test_writers_are_served_in_arrival_order() -> None:
    gate = WriteGate("test")
    order: list[int] = []
    arrived: list[int] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        with lock:
            arrived.append(n)
        with gate.permit():
            order.append(n)
            time.sleep(0.001)

    with gate.permit():  # hold the gate while 30 writers queue up one after another
        threads = []
        for n in range(30):
            t = threading.Thread(target=writer, args=(n,))
            t.start()
            threads.append(t)
            while len(arrived) <= n:  # each has taken its ticket before the next starts
                time.sleep(0.0005)
            time.sleep(0.002)
    for t in threads:
        t.join()
    assert order == list(range(30))


def test_a_waiter_out_of_time_leaves_and_the_queue_keeps_its_order() -> None:
    gate = WriteGate("test")
    order: list[int] = []
    gave_up = threading.Event()

    def impatient() -> None:
        with pytest.raises(GateTimeout), gate.permit(timeout=0.05):
            order.append(-1)  # never: the permit is held all the while
        gave_up.set()

    def patient(n: int) -> None:
        with gate.permit(timeout=30):
            order.append(n)

    with gate.permit():
        first = threading.Thread(target=patient, args=(0,))
        first.start()
        while gate._next_ticket < 2:  # its ticket is taken before the impatient one's
            time.sleep(0.0005)
        quitter = threading.Thread(target=impatient)
        quitter.start()
        assert gave_up.wait(10)
        last = threading.Thread(target=patient, args=(1,))
        last.start()
        while gate._next_ticket < 4:
            time.sleep(0.0005)
    for t in (first, quitter, last):
        t.join(10)
    assert order == [0, 1]  # the abandoned ticket was skipped, nobody waits for it


def test_a_nested_write_raises_instead_of_deadlocking(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "x.db")
    with db.write() as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(WriteGateReentrant), db.write() as conn:
        conn.execute("INSERT INTO t VALUES (1)")
        with db.write():
            pass
    with db.read() as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0  # the outer rolled back
    with db.write() as conn:  # and the gate is free again
        conn.execute("INSERT INTO t VALUES (2)")
    db.close()


def test_many_threads_lose_no_write(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "x.db")
    with db.write() as conn:
        conn.execute("CREATE TABLE t (n INTEGER)")

    def writer(base: int) -> None:
        for i in range(50):
            with db.write() as conn:
                conn.execute("INSERT INTO t VALUES (?)", (base + i,))

    threads = [threading.Thread(target=writer, args=(k * 1000,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with db.read() as conn:
        assert conn.execute("SELECT count(DISTINCT n) FROM t").fetchone()[0] == 400
    db.close()


def test_readers_see_committed_rows_and_the_writer_its_own(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "x.db")
    with db.write() as conn:
        conn.execute("CREATE TABLE t (n INTEGER)")
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (1)")
        with db.read() as inner:
            assert inner.execute("SELECT count(*) FROM t").fetchone()[0] == 1
    db.close()
