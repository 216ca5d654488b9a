"""The resolve indexes of one process are bounded (issue 16, item 3): past the budget of
entities the least recently used scope's index is emptied, and its next use rebuilds it from
the store, taking in what other processes committed meanwhile."""

from __future__ import annotations

import gc
import random
import threading
from collections.abc import Iterator

import pytest

from groundnote.config import ConfigError
from groundnote.graph import trigram
from groundnote.graph.fts import put_text, remove_text
from groundnote.graph.trigram import held_entities, index_for, set_budget
from groundnote.runtime import Runtime, open_runtime
from groundnote.store import Database

SCOPES = ["north", "south", "east"]
PER_SCOPE = 40
WORDS = ["vertrieb", "nord", "sued", "projekt", "polarstern", "mueller", "bau", "nordwerk"]


@pytest.fixture
def budget() -> Iterator[None]:
    """The budget is the process's: restore what the runtime set after the test. Indexes of
    earlier tests' closed stores are released with them."""
    before = trigram._HELD.budget
    gc.collect()
    assert held_entities() == 0
    yield
    set_budget(before)


def _fill(db: Database, count: int, seed: int) -> None:
    rng = random.Random(seed)
    with db.write() as conn:
        for seq in range(1, count + 1):
            name = " ".join(rng.sample(WORDS, rng.randint(1, 3))) + f" {seq}"
            put_text(conn, seq, name, [f"{name[:2]}{seq}"] if seq % 3 == 0 else [])


@pytest.fixture
def scopes(runtime: Runtime) -> dict[str, Database]:
    made = {}
    for number, scope in enumerate(SCOPES):
        runtime.home.create_scope(scope)
        made[scope] = runtime.home.scope_db(scope)
        _fill(made[scope], PER_SCOPE, number)
    return made


def _answers(db: Database) -> list[object]:
    index = index_for(db)
    return [
        len(index),
        index.similar("vertrieb nord", 10),
        index.similar("polarstrn bau", 10),
        index.exact("projekt 3"),
        index.by_initials("vn", 10),
        index.token_counts(["nord", "bau", "zzz"]),
        index.texts_of(range(1, PER_SCOPE + 5)),
    ]


def test_the_least_recently_used_scope_is_emptied_past_the_budget(
    budget: None, scopes: dict[str, Database]
) -> None:
    set_budget(2 * PER_SCOPE + 10)
    north, south, east = (index_for(scopes[s]) for s in SCOPES)
    north.warm()
    south.warm()
    assert north.built and south.built
    assert held_entities() == 2 * PER_SCOPE
    east.warm()  # a third scope does not fit: north, used least recently, goes
    assert (north.built, south.built, east.built) == (False, True, True)
    assert held_entities() == 2 * PER_SCOPE
    assert south.exact("nord 1") is not None  # south is now the most recent, east the least
    assert len(north) == PER_SCOPE  # rebuilt on its use, east goes
    assert (north.built, south.built, east.built) == (True, True, False)
    assert held_entities() == 2 * PER_SCOPE


def test_the_budget_is_never_exceeded_by_more_than_the_scope_in_use(
    budget: None, scopes: dict[str, Database]
) -> None:
    set_budget(PER_SCOPE // 2)  # smaller than any one scope
    rng = random.Random(3)
    for _ in range(30):
        index = index_for(scopes[rng.choice(SCOPES)])
        assert len(index) == PER_SCOPE  # the scope in use always answers
        built = [s for s in SCOPES if index_for(scopes[s]).built]
        assert len(built) == 1
        assert held_entities() == PER_SCOPE


def test_an_emptied_scope_answers_the_same_after_its_rebuild(
    budget: None, runtime: Runtime, scopes: dict[str, Database]
) -> None:
    set_budget(PER_SCOPE + 5)
    north = scopes["north"]
    before = _answers(north)
    index_for(scopes["south"]).warm()
    assert not index_for(north).built
    assert _answers(north) == before


def test_what_another_process_commits_while_a_scope_is_emptied_is_read_at_the_rebuild(
    budget: None, runtime: Runtime, scopes: dict[str, Database]
) -> None:
    set_budget(PER_SCOPE + 5)
    index = index_for(scopes["north"])
    index.warm()
    index_for(scopes["south"]).warm()
    assert not index.built
    elsewhere = runtime.home.open_unmigrated("north")  # another process's handle
    try:
        with elsewhere.write() as conn:
            put_text(conn, 500, "Schäfer Logistik", [])
            remove_text(conn, 1)
    finally:
        elsewhere.close()
    assert index.exact("schaefer logistik") == {500}
    assert index.texts(1) == ()
    assert len(index) == PER_SCOPE
    # and once built, the change record keeps it in step again without a rebuild
    elsewhere = runtime.home.open_unmigrated("north")
    try:
        with elsewhere.write() as conn:
            put_text(conn, 501, "Zander Bau", [])
    finally:
        elsewhere.close()
    assert index.exact("zander bau") == {501}


def test_warming_stops_when_the_budget_is_full(
    budget: None, runtime: Runtime, scopes: dict[str, Database]
) -> None:
    set_budget(held_entities() + PER_SCOPE)
    runtime.warm(SCOPES)
    assert [index_for(scopes[s]).built for s in SCOPES] == [True, False, False]


def test_the_budget_is_configured_and_checked(budget: None, tmp_path: object) -> None:
    from pathlib import Path

    home = Path(str(tmp_path)) / "home"
    env = {"GROUNDNOTE_RESOLVE__INDEX_BUDGET_ENTITIES": "250000"}
    rt = open_runtime(home, environ=env)
    try:
        assert rt.config.resolve.index_budget_entities == 250_000
        assert trigram._HELD.budget == 250_000
    finally:
        rt.close()
    with pytest.raises(ConfigError, match="index_budget_entities"):
        open_runtime(home, environ={"GROUNDNOTE_RESOLVE__INDEX_BUDGET_ENTITIES": "10"})


def test_a_failed_read_still_empties_the_scopes_it_pushed_out(
    budget: None, scopes: dict[str, Database]
) -> None:
    set_budget(PER_SCOPE + 5)
    north, south = index_for(scopes["north"]), index_for(scopes["south"])
    north.warm()
    with pytest.raises(TypeError):
        south.texts_of(42)  # type: ignore[arg-type]
    assert (north.built, south.built) == (False, True)
    assert held_entities() == PER_SCOPE


def test_an_index_collected_under_the_budgets_lock_leaves_the_process_alive() -> None:
    """The collector runs wherever an allocation triggers it, inside the count's lock too: an
    index dropped in a reference cycle then takes its leave (the weakref's callback) in the
    same thread, under the lock already held."""

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    held = trigram._Held()
    gone = Cycle()
    held.used(gone, 7)  # type: ignore[arg-type]
    assert held.total() == 7

    def collect_under_the_lock() -> None:
        with held._lock:
            gc.collect()

    del gone
    worker = threading.Thread(target=collect_under_the_lock, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the weakref's callback waited for a lock its thread held"
    assert held.total() == 0
