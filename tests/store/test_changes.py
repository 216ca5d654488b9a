"""The change record (store/changes): what one handle on a scope file commits, another
handle's resolve index takes in on its next read, as another process's would; a rebuild and a
pruned record make it re-read everything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest

from groundnote.graph.fts import put_text, rebuild_fts
from groundnote.graph.trigram import TrigramIndex, index_for
from groundnote.runtime import Runtime
from groundnote.store import Database, changes
from groundnote.store.database import CHANGE_BOUNDS_SQL, one_call
from groundnote.store.sql import Connection
from tests.conftest import Call, raw_connection


@pytest.fixture
def elsewhere(runtime: Runtime, scope: str) -> Iterator[Database]:
    """A second handle on the scope file: its own connections, its own index."""
    db = runtime.home.open_unmigrated(scope)
    yield db
    db.close()


def _index(runtime: Runtime, scope: str) -> TrigramIndex:
    index = index_for(runtime.home.scope_db(scope))
    index.warm()
    return index


def test_a_commit_through_another_handle_reaches_the_index(
    runtime: Runtime, scope: str, elsewhere: Database
) -> None:
    index = _index(runtime, scope)
    assert index.exact("schaefer logistik") == set()
    with elsewhere.write() as conn:
        put_text(conn, 41, "Schäfer Logistik", ["SL Nord"])
    assert index.exact("schaefer logistik") == {41}
    assert index.exact("sl nord") == {41}
    with elsewhere.write() as conn:
        put_text(conn, 41, "Schäfer Spedition", [])
    assert index.exact("schaefer logistik") == set()
    assert index.similar("schaefer spedition", 5) == [41]


def test_a_rolled_back_write_never_reaches_the_index(
    runtime: Runtime, scope: str, elsewhere: Database
) -> None:
    index = _index(runtime, scope)
    with pytest.raises(RuntimeError), elsewhere.write() as conn:
        put_text(conn, 42, "Zander Bau", [])
        assert index.exact("zander bau") == set()  # uncommitted: not seen from outside
        raise RuntimeError("the operation failed after its write")
    assert index.exact("zander bau") == set()


def test_nothing_committed_costs_no_query_and_a_commit_is_noticed(
    runtime: Runtime, scope: str, call: Call
) -> None:
    db = runtime.home.scope_db(scope)
    watch = changes.Watch(db)
    with watch.snapshot() as conn:
        watch.advance(watch.since(conn, "entity_fts"))
    assert not watch.moved()
    call("graph.entity_create", scope=scope, type="organisation", name="Jäger Elektro")
    assert watch.moved()
    with watch.snapshot() as conn:
        caught = watch.since(conn, "entity_fts")
    assert (caught.refs, caught.everything) == (frozenset({"1"}), False)


def _counting_snapshots(monkeypatch: pytest.MonkeyPatch, db: Database) -> list[int]:
    """How many catch-ups read through `db`'s snapshot from now on."""
    taken: list[int] = []
    real = db.snapshot

    def counted() -> AbstractContextManager[Connection]:
        taken.append(1)
        return real()

    monkeypatch.setattr(db, "snapshot", counted)
    return taken


def test_an_own_write_is_taken_in_with_its_commit(
    runtime: Runtime, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = runtime.home.scope_db(scope)
    index = _index(runtime, scope)
    taken = _counting_snapshots(monkeypatch, db)
    with db.write() as conn:
        put_text(conn, 61, "Brückner Metall", ["BM Süd"])
    assert index.exact("brueckner metall") == {61}
    assert index.exact("bm sued") == {61}
    with db.write() as conn:
        put_text(conn, 61, "Brückner Stahl", [])
    assert index.exact("brueckner metall") == set()
    assert index.similar("brueckner stahl", 5) == [61]
    # Read ahead of each COMMIT: no catch-up afterwards where the backend knows the version a
    # commit leaves (PostgreSQL: the newest seq); SQLite asks its snapshot once a read, as
    # after any other commit.
    knows = db.version_after_commit(1) is not None
    assert len(taken) == (0 if knows else 2)


def test_an_own_write_brings_in_what_others_committed_before_it(
    runtime: Runtime, scope: str, elsewhere: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = runtime.home.scope_db(scope)
    index = _index(runtime, scope)
    with elsewhere.write() as conn:  # as another process: this index has not looked since
        put_text(conn, 71, "Vogt Kältetechnik", [])
    taken = _counting_snapshots(monkeypatch, db)
    with db.write() as conn:
        put_text(conn, 72, "Vogt Klimatechnik", [])
    if db.version_after_commit(1) is not None:
        assert index.texts_of([71, 72]) == {71: ("vogt kaeltetechnik",), 72: ("vogt klimatechnik",)}
        assert taken == []  # both came with the own write's COMMIT
    assert index.exact("vogt kaeltetechnik") == {71}
    assert index.exact("vogt klimatechnik") == {72}


def test_an_own_write_rolled_back_never_reaches_the_index(runtime: Runtime, scope: str) -> None:
    db = runtime.home.scope_db(scope)
    index = _index(runtime, scope)
    with pytest.raises(RuntimeError), db.write() as conn:
        put_text(conn, 81, "Lorenz Druck", [])
        raise RuntimeError("the operation failed after its write")
    assert index.exact("lorenz druck") == set()
    assert len(index) == 0


def test_a_follower_that_fails_after_the_commit_rebuilds_and_the_write_stands(
    runtime: Runtime, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = runtime.home.scope_db(scope)
    index = _index(runtime, scope)

    def broken(seq: int, texts: tuple[str, ...]) -> None:
        raise MemoryError("the index could not grow")

    monkeypatch.setattr(index, "_put", broken)
    with db.write() as conn:  # committed, and answered as committed
        put_text(conn, 91, "Hartmann Glas", [])
    monkeypatch.undo()
    assert index.exact("hartmann glas") == {91}  # rebuilt from entity_fts on its next read
    with db.read() as conn:
        assert conn.execute("SELECT name FROM entity_fts WHERE rowid = 91").fetchone()[0] == (
            "hartmann glas"
        )


def test_a_rebuild_makes_every_index_read_everything(
    runtime: Runtime, scope: str, call: Call, elsewhere: Database
) -> None:
    call("graph.entity_create", scope=scope, type="organisation", name="Köhler Anlagenbau")
    theirs = index_for(elsewhere)
    theirs.warm()
    with runtime.home.scope_db(scope).write() as conn:
        # Written around fts.put_text, so no change row names it: only a rebuild finds it.
        conn.execute("UPDATE entity_fts SET name = 'koehler maschinenbau' WHERE rowid = 1")
    assert theirs.exact("koehler maschinenbau") == set()
    rebuild_fts(runtime.home.scope_db(scope))
    assert theirs.exact("koehler anlagenbau") == {1}  # rebuilt from the tables, read again
    assert len(theirs) == 1


def test_a_consumer_behind_the_pruned_record_reads_everything(
    runtime: Runtime, scope: str, elsewhere: Database
) -> None:
    index = _index(runtime, scope)
    with elsewhere.write() as conn:
        put_text(conn, 7, "Vertrieb Nord", [])
        # Jump the record far ahead: the horizon trigger prunes every row this index needs.
        conn.execute("INSERT INTO change_record (seq, kind, ref) VALUES (200000, 'other', 'x')")
        assert conn.execute("SELECT min(seq) FROM change_record").fetchone()[0] == 200000
    assert index.exact("vertrieb nord") == {7}


def test_the_record_keeps_only_its_newest_rows(runtime: Runtime, scope: str) -> None:
    db = runtime.home.scope_db(scope)
    with db.write() as conn:
        for _ in range(5):
            changes.record(conn, "entity_fts", "1")
        conn.execute("INSERT INTO change_record (seq, kind, ref) VALUES (100999, 'k', 'r')")
        assert conn.execute("SELECT count(*) FROM change_record").fetchone()[0] == 6
        conn.execute("INSERT INTO change_record (seq, kind, ref) VALUES (101000, 'k', 'r')")
        rows = [r[0] for r in conn.execute("SELECT seq FROM change_record ORDER BY seq")]
    assert rows == [100999, 101000]


def test_a_call_asks_the_version_once_until_it_commits(runtime: Runtime, scope: str) -> None:
    # One capability call is one look at the record on PostgreSQL (a round trip each ask):
    # another process's commit during the call is seen by the next call; the call's own
    # commit, and anything after the call, are seen at once. SQLite asks its connection's
    # PRAGMA each time (free), so it sees the other commit at once too.
    db = runtime.home.scope_db(scope)
    other = raw_connection(runtime, scope)
    try:
        with one_call():
            first = db.data_version()
            other.execute("BEGIN")
            changes.record(other, "test", "elsewhere")
            other.execute("COMMIT")
            during = db.data_version()
            with db.write() as conn:
                changes.record(conn, "test", "own")
            after_own = db.data_version()
        after_call = db.data_version()
    finally:
        other.close()
    assert (during == first) == (db.backend == "postgresql")
    assert after_own != first
    assert after_call == after_own


@pytest.mark.sqlite_only(
    "SQLite's plan: it answers max() or min() from the key only when each is alone in its "
    "SELECT; PostgreSQL chooses by the table's size, and reads the key at any size that matters"
)
def test_the_record_bounds_come_from_its_key_not_a_scan(runtime: Runtime, scope: str) -> None:
    def plan(sql: str) -> list[str]:
        with runtime.home.scope_db(scope).read() as conn:
            return [str(row[-1]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]

    # Both in one SELECT scan the record: 7 ms at the 100,000 rows it keeps, on every write.
    assert "SCAN change_record" in plan("SELECT max(seq), min(seq) FROM change_record")
    bounds = plan(CHANGE_BOUNDS_SQL)
    assert bounds.count("SEARCH change_record") == 2, bounds
    assert not any("SCAN change_record" in line for line in bounds), bounds
