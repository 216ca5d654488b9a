"""What every store backend promises, run on the backend the suite runs on (SQLite files by
default, PostgreSQL schemas with GROUNDNOTE_TEST_DATABASE_URL): ids made as max+1 under the
write gate are never handed out twice, by threads or by processes; a writer held up past the
busy timeout gets `Busy`; migrations are idempotent, refuse a changed file and leave nothing
of a failed one; a refused write raises the store's IntegrityError with the trigger's text;
one unit never sees another's tables. CI runs this file on both (.ci/run).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from groundnote.domain.errors import Busy, Cycle, from_backstop
from groundnote.store import (
    Database,
    Migration,
    MigrationChecksumMismatch,
    SqliteDatabase,
    migrate,
)
from groundnote.store.sql import IntegrityError, StoreError, table_exists

NOW = "2026-11-30T09:00:00.000Z"
COUNTER = Migration(
    "conformance",
    1,
    "counter",
    "CREATE TABLE counter (seq INTEGER PRIMARY KEY, who TEXT NOT NULL);\n"
    "CREATE TRIGGER counter_no_delete BEFORE DELETE ON counter "
    "BEGIN SELECT RAISE(ABORT, 'cycle'); END;\n",
    postgresql=(
        "CREATE TABLE counter (seq BIGINT PRIMARY KEY, who TEXT NOT NULL);\n"
        "CREATE FUNCTION counter_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN RAISE EXCEPTION 'cycle' USING ERRCODE = 'integrity_constraint_violation'; "
        "END $$;\n"
        "CREATE TRIGGER counter_no_delete BEFORE DELETE ON counter "
        "FOR EACH ROW EXECUTE FUNCTION counter_no_delete();\n"
    ),
)
NEXT = "INSERT INTO counter (seq, who) SELECT coalesce(max(seq), 0) + 1, ? FROM counter"

Opener = Callable[[str], Database]


def _opener(folder: Path, database_url: str | None, busy_timeout: float = 10.0) -> Opener:
    def open_unit(name: str) -> Database:
        if database_url is None:
            return SqliteDatabase(folder / f"{name}.db", busy_timeout)
        from groundnote.store.postgres import PostgresDatabase

        return PostgresDatabase(database_url, f"unit_{name}", busy_timeout)

    return open_unit


@pytest.fixture
def open_unit(tmp_path: Path, database_url: str | None) -> Iterator[Opener]:
    opened: list[Database] = []

    def open_unit(name: str) -> Database:
        db = _opener(tmp_path, database_url)(name)
        opened.append(db)
        return db

    yield open_unit
    for db in opened:
        db.close()


def _count(db: Database, what: str = "count(*)") -> int:
    with db.read() as conn:
        value: int = conn.execute(f"SELECT {what} FROM counter").fetchone()[0]
    return value


def test_migrations_are_idempotent_and_refuse_a_changed_file(open_unit: Opener) -> None:
    db = open_unit("a")
    assert migrate(db, "conformance", [COUNTER], NOW) == 1
    assert migrate(db, "conformance", [COUNTER], NOW) == 0
    changed = Migration(
        "conformance",
        1,
        "counter",
        COUNTER.sql + "-- edited\n",
        postgresql=(COUNTER.postgresql or "") + "-- edited\n",
    )
    with pytest.raises(MigrationChecksumMismatch, match="conformance/0001_counter"):
        migrate(db, "conformance", [changed], NOW)


def test_a_failing_migration_leaves_nothing(open_unit: Opener) -> None:
    db = open_unit("a")
    broken = Migration(
        "conformance",
        1,
        "broken",
        "CREATE TABLE half (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n",
        postgresql="CREATE TABLE half (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n",
    )
    with pytest.raises(StoreError):
        migrate(db, "conformance", [broken], NOW)
    with db.read() as conn:
        assert not table_exists(conn, "half")
        assert conn.execute("SELECT count(*) FROM migrations").fetchone()[0] == 0


def test_a_refused_write_carries_the_triggers_text(open_unit: Opener) -> None:
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    with db.write() as conn:
        conn.execute(NEXT, ("me",))
    with pytest.raises(IntegrityError) as refused, db.write() as conn:
        conn.execute("DELETE FROM counter")
    assert str(refused.value) == "cycle"  # the trigger's text exactly, no engine decoration
    known = from_backstop(str(refused.value))
    assert known is not None and known.code == Cycle.code
    with pytest.raises(IntegrityError), db.write() as conn:
        conn.execute("INSERT INTO counter (seq, who) VALUES (1, 'again')")
    assert _count(db) == 1  # both refused transactions were rolled back whole


def test_an_appended_row_is_seen_at_once_and_a_refused_one_leaves_the_connection_working(
    open_unit: Opener,
) -> None:
    """`append` (one statement adding a read's log row, outside the gate) commits the row,
    visible to the next read at once; a refused row raises the store's error, leaves nothing,
    and the pooled connection it ran on serves the next append."""
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    with db.append() as conn:
        conn.execute("INSERT INTO counter (seq, who) VALUES (1, 'log')")
    assert _count(db) == 1
    for _ in range(3):
        with pytest.raises(IntegrityError), db.append() as conn:
            conn.execute("INSERT INTO counter (seq, who) VALUES (1, 'again')")
    with db.append() as conn:
        conn.execute("INSERT INTO counter (seq, who) VALUES (2, 'after')")
    assert _count(db) == 2 and _count(db, "max(seq)") == 2


def test_writes_nobody_reads_are_seen_counted_and_refused_in_order(open_unit: Opener) -> None:
    """On PostgreSQL a write runs in pipeline mode: statements whose rows are not read go out
    with the next one that is. Their effects, their row counts and their errors must reach the
    caller as if each had waited: a later read sees them, `rowcount` counts them, and a refused
    one (followed by more statements nobody reads) still fails the write and undoes all of it."""
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    with db.write() as conn:
        for who in ("a", "b", "c"):
            conn.execute(NEXT, (who,))
        assert conn.execute("SELECT count(*) FROM counter").fetchone()[0] == 3
        assert conn.execute("UPDATE counter SET who = 'z' WHERE seq >= ?", (2,)).rowcount == 2
        assert [r[0] for r in conn.execute("SELECT who FROM counter ORDER BY seq")] == [
            "a",
            "z",
            "z",
        ]
    with pytest.raises(IntegrityError) as refused, db.write() as conn:
        conn.execute(NEXT, ("d",))
        conn.execute("DELETE FROM counter WHERE seq = 1")  # the trigger refuses it
        conn.execute(NEXT, ("e",))
    assert str(refused.value) == "cycle"
    assert _count(db) == 3 and _count(db, "max(seq)") == 3  # d and e were not written
    with db.write() as conn:  # the connection serves the next write as before
        conn.execute(NEXT, ("f",))
    assert _count(db, "max(seq)") == 4


def test_a_write_reads_its_row_count_after_it_ends_and_recovers_at_a_savepoint(
    open_unit: Opener,
) -> None:
    """Two ways callers use a write that pipeline mode must not break: `rowcount` read once the
    `with` has ended (revoke_grant does), and a refusal inside a savepoint rolled back to it
    while the write goes on (an import's refusal, the impulse audit)."""
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    with db.write() as conn:
        updated = conn.execute(NEXT, ("a",))
    assert updated.rowcount == 1
    with db.write() as conn:
        conn.execute("SAVEPOINT attempt")
        with pytest.raises(IntegrityError):
            conn.execute("DELETE FROM counter WHERE seq = 1")  # the trigger refuses it
            conn.execute("SELECT count(*) FROM counter").fetchone()
        conn.execute("ROLLBACK TO SAVEPOINT attempt")
        conn.execute(NEXT, ("b",))
    assert _count(db) == 2 and _count(db, "max(seq)") == 2


def test_refusals_in_a_row_leave_the_next_write_working(open_unit: Opener) -> None:
    # On PostgreSQL a write's COMMIT goes in one round trip with its statements, so a refused
    # statement aborts a pipeline that holds the COMMIT too. psycopg prepares a statement from
    # its fifth run, and a prepared COMMIT skipped in an aborted pipeline made a later write
    # fail with "prepared statement does not exist" (it does, without `_worth_preparing`).
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    # which run of a statement psycopg prepares depends on the writes before: several rhythms
    written = 0
    for rhythm in ("wr", "wwr", "wrr", "wwwr", "wwwwr") * 4:
        for step in rhythm:
            if step == "w":
                with db.write() as conn:
                    conn.execute(NEXT, ("next",))
                written += 1
            else:
                with pytest.raises(IntegrityError), db.write() as conn:
                    conn.execute("INSERT INTO counter (seq, who) VALUES (1, ?)", ("again",))
    assert _count(db) == written


def test_a_write_whose_refusal_was_caught_commits_nothing(open_unit: Opener) -> None:
    # SQLite keeps the transaction after a refused statement; PostgreSQL aborts it. Either
    # way what the caller's code swallowed may not be half committed: on SQLite the rest of
    # the write stands (the refused row was never written), on PostgreSQL the whole write is
    # refused with a message that says so.
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)
    with db.write() as conn:
        conn.execute(NEXT, ("first",))
    try:
        with db.write() as conn:
            conn.execute(NEXT, ("kept?",))
            with pytest.raises(IntegrityError):
                conn.execute("INSERT INTO counter (seq, who) VALUES (1, 'again')").fetchall()
    except StoreError as exc:
        assert db.backend == "postgresql"
        assert "nothing was written" in str(exc)
        assert _count(db) == 1
    else:
        assert db.backend == "sqlite"
        assert _count(db) == 2


def test_units_do_not_see_each_others_tables(open_unit: Opener) -> None:
    one, other = open_unit("one"), open_unit("other")
    migrate(one, "conformance", [COUNTER], NOW)
    with one.write() as conn:
        conn.execute(NEXT, ("one",))
    with other.read() as conn:
        assert not table_exists(conn, "counter")
        with pytest.raises(StoreError):
            conn.execute("SELECT count(*) FROM counter")


def test_threads_get_consecutive_ids_none_twice(open_unit: Opener) -> None:
    db = open_unit("a")
    migrate(db, "conformance", [COUNTER], NOW)

    def writer(name: str) -> None:
        for _ in range(25):
            with db.write() as conn:
                conn.execute(NEXT, (name,))

    threads = [threading.Thread(target=writer, args=(f"t{k}",)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (_count(db), _count(db, "max(seq)"), _count(db, "count(DISTINCT who)")) == (150, 150, 6)


def _process_writer(
    folder: str, database_url: str | None, name: str, n: int, done: multiprocessing.Queue[str]
) -> None:
    db = _opener(Path(folder), database_url)("shared")
    try:
        for _ in range(n):
            with db.write() as conn:
                conn.execute(NEXT, (name,))
        done.put("ok")
    except Exception as exc:  # reported to the parent, never swallowed
        done.put(repr(exc))
    finally:
        db.close()


@pytest.mark.slow
def test_processes_get_consecutive_ids_none_twice(
    tmp_path: Path, open_unit: Opener, database_url: str | None
) -> None:
    db = open_unit("shared")
    migrate(db, "conformance", [COUNTER], NOW)
    context = multiprocessing.get_context("spawn")
    done: multiprocessing.Queue[str] = context.Queue()
    workers = [
        context.Process(
            target=_process_writer, args=(str(tmp_path), database_url, f"p{k}", 40, done)
        )
        for k in range(3)
    ]
    for worker in workers:
        worker.start()
    answers = [done.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert answers == ["ok"] * 3
    with db.read() as conn:
        seqs = [r[0] for r in conn.execute("SELECT seq FROM counter ORDER BY seq")]
        per_writer = dict(
            conn.execute("SELECT who, count(*) FROM counter GROUP BY who ORDER BY who").fetchall()
        )
    assert seqs == list(range(1, 121))  # max+1 under the gate: no gap, no id twice
    assert per_writer == {"p0": 40, "p1": 40, "p2": 40}


def _hold_the_lock(database_url: str | None, tmp_path: Path) -> Callable[[], None]:
    """Another process's writer, holding the unit's cross-process lock until released."""
    if database_url is None:
        import sqlite3

        other = sqlite3.connect(tmp_path / "a.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")

        def release_file() -> None:
            other.execute("ROLLBACK")
            other.close()

        return release_file
    from groundnote.store.postgres import GATE_TABLE, connect

    held = connect(database_url, "unit_a")
    held.execute(f"BEGIN; SELECT id FROM {GATE_TABLE} WHERE id = 1 FOR UPDATE")

    def release_row() -> None:
        held.raw.execute("ROLLBACK")
        held.raw.close()

    return release_row


def test_a_writer_held_up_past_the_busy_timeout_gets_busy(
    tmp_path: Path, database_url: str | None
) -> None:
    db = _opener(tmp_path, database_url, busy_timeout=0.5)("a")
    try:
        migrate(db, "conformance", [COUNTER], NOW)
        release = _hold_the_lock(database_url, tmp_path)
        started = time.monotonic()
        try:
            with pytest.raises(Busy), db.write() as conn:
                conn.execute(NEXT, ("late",))
        finally:
            release()
        assert 0.4 <= time.monotonic() - started < 5
        with db.write() as conn:  # the lock and the gate are free again
            conn.execute(NEXT, ("after",))
        assert _count(db) == 1
    finally:
        db.close()
