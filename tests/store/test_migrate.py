"""`groundnote migrate --to postgresql://…` moves a whole SQLite home into PostgreSQL: afterwards
every read capability answers the same there as on the SQLite original (issue 20 item 7).

The source is always a SQLite home; the target a database made empty for the test on the
server of GROUNDNOTE_TEST_DATABASE_URL, so these tests run in CI's PostgreSQL pass and are
listed as deselected in the SQLite one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote import runtime as runtime_module
from groundnote.auth import (
    LOCAL_OPERATOR,
    Right,
    add_person,
    issue_login_link,
    redeem_login_link,
    session_of,
)
from groundnote.config import ConfigError
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import ValidationFailed
from groundnote.runtime import MIGRATE_SPEC, Runtime, open_runtime
from groundnote.store.migrate import migrate_home, target_holdings
from groundnote.store.postgres import close_pools
from tests import conftest
from tests.conftest import make_principal
from tests.context.project import write_project
from tests.transfer.history import Scope, play, reads
from tests.transfer.test_impulses_roundtrip import _history as impulses_history
from tests.transfer.test_impulses_roundtrip import _reads as impulses_reads
from tests.transfer.test_scope_roundtrip import HISTORY, START

pytestmark = pytest.mark.postgresql_only(
    "migrate writes into a PostgreSQL server: set GROUNDNOTE_TEST_DATABASE_URL"
)

SCOPES = ("nord", "sued-ost")


@pytest.fixture
def sqlite_only_homes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Homes opened in this test are SQLite files unless they name a database themselves
    (the suite's PostgreSQL switch would put every home into the test's database)."""
    monkeypatch.delenv("GROUNDNOTE_DATABASE_URL", raising=False)
    monkeypatch.setattr(runtime_module, "load_config", conftest._semantic_off_unless_asked)


def _admin(sql: str) -> None:
    assert conftest.TEST_DATABASE_URL is not None
    with psycopg.connect(conftest.TEST_DATABASE_URL, autocommit=True) as admin:
        admin.execute(sql)


def _empty_database() -> str:
    """A new database on the test server with nothing of Groundnote in it (C collation)."""
    assert conftest.TEST_DATABASE_URL is not None
    name = f"gn_m_{uuid.uuid4().hex[:12]}"
    _admin(
        f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING UTF8 LC_COLLATE 'C' LC_CTYPE 'C'"
    )
    return conftest._with_database(conftest.TEST_DATABASE_URL, name)


def _drop_database(url: str) -> None:
    close_pools(url)
    _admin(f'DROP DATABASE IF EXISTS "{conftest._database_name(url)}" WITH (FORCE)')


@pytest.fixture
def empty_database() -> Iterator[str]:
    url = _empty_database()
    yield url
    _drop_database(url)


class Original:
    """A SQLite home holding every subsystem's data, and the tokens that read it."""

    def __init__(self, path: Path, clock: FixedClock) -> None:
        self.clock = clock
        self.runtime = open_runtime(path / "home", clock=clock, environ={})
        assert self.runtime.home.database_url is None
        self.tokens: dict[str, str] = {}
        for name in SCOPES:
            self.runtime.home.create_scope(name)
            _, token = make_principal(
                self.runtime, f"agent-{name}", {name: Right.PROPOSE}, ["mcp", "api"]
            )
            self.tokens[name] = token
            play(self.scope(self.runtime, name), HISTORY, clock)
        self.impulses = impulses_history(self.runtime, clock)  # also makes the scope sales
        home = self.runtime.home
        add_person(
            home.instance, "ruth", email="ruth@example.org", org="local", now=clock.instant()
        )
        link = issue_login_link(home.instance, "ruth", clock)
        session = redeem_login_link(home.instance, link, clock)
        assert session is not None
        self.session = session.token
        issue_login_link(home.instance, "ruth", clock)  # one unused link
        project = write_project(path / "project")
        for capability in ("context.up", "context.bind", "context.publish"):
            extra = {"scope": "nord"} if capability == "context.bind" else {}
            self.operator(self.runtime, capability, path=str(project), **extra)
        # an embedding, as `rebuild vectors` writes it (the model is not needed to move it)
        with home.scope_db("nord").write() as conn:
            conn.execute(
                "INSERT INTO text_vector (id, kind, seq, model, dim, vector) "
                "VALUES (1, 'rule', 1, 'test-model', 2, ?)",
                (b"\x00\x00\x80?\x00\x00\x00\x00",),
            )
            conn.execute(
                "INSERT INTO entity_vector (seq, text, model, dim, vector) "
                "SELECT min(seq), 'Vertrieb', 'test-model', 2, ? FROM entity",
                (b"\x00\x00\x80?\x00\x00\x00\x00",),
            )

    def scope(self, runtime: Runtime, name: str) -> Scope:
        agent = runtime.authenticate(self.tokens[name])
        assert agent is not None, f"the grant of {name} does not open on {runtime.home.backend}"
        return Scope(runtime, name, agent)

    @staticmethod
    def operator(runtime: Runtime, capability: str, /, **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(capability)
        out = runtime.invoke(cap, raw, principal=LOCAL_OPERATOR, channel="cli")
        return out.model_dump(mode="json")

    def everything(self, runtime: Runtime) -> dict[str, Any]:
        """Every read of the home: each scope's read capabilities, the registry, the
        organisation's impulses, the person's session, the content projects."""
        person = session_of(runtime.home.instance, self.session, self.clock.instant())
        return {
            "scopes": {name: reads(self.scope(runtime, name)) for name in SCOPES},
            "list_scopes": self.operator(runtime, "core.list_scopes"),
            "impulses": impulses_reads(runtime, self.impulses),
            "session": None if person is None else (person.csrf, person.principal.id),
            "projects": self.operator(runtime, "context.projects"),
        }


def _same(migrated: dict[str, Any], before: dict[str, Any]) -> None:
    """Answer by answer, so a difference names its capability."""
    assert migrated.keys() == before.keys()
    for scope, answers in before["scopes"].items():
        for capability, answer in answers.items():
            assert migrated["scopes"][scope][capability] == answer, f"{scope}: {capability}"
    for name in before:
        assert migrated[name] == before[name], name


@pytest.fixture
def original(sqlite_only_homes: None, tmp_path: Path, clock: FixedClock) -> Iterator[Original]:
    home = Original(tmp_path, clock)
    yield home
    home.runtime.close()


def test_a_migrated_home_reads_the_same_on_postgresql(
    original: Original, empty_database: str, tmp_path: Path
) -> None:
    report = migrate_home(original.runtime.home, empty_database, MIGRATE_SPEC)
    assert report.problems == []
    counts = report.counts
    assert set(counts) == {"instance", "scope nord", "scope sued-ost", "scope sales"}
    for unit, table in [
        ("scope nord", "entity_version"),
        ("scope nord", "review"),
        ("scope nord", "text_vector"),
        ("scope nord", "entity_vector"),
        ("scope sued-ost", "rule_decision"),
        ("scope sued-ost", "entity_closure"),
        ("instance", "grant_"),
        ("instance", "person_session"),
        ("instance", "concept_edge"),
        ("instance", "graph_nodes"),
        ("instance", "context_project"),
        ("instance", "impulse_sweep"),  # a row its migration seeds, replaced by the source's
    ]:
        before, after = counts[unit][table]
        assert before == after > 0, f"{unit} {table}: {before} → {after}"
    assert "groundnote" in target_holdings(empty_database)

    answers = original.everything(original.runtime)
    target = open_runtime(tmp_path / "target", clock=original.clock, database_url=empty_database)
    try:
        assert target.home.backend == "postgresql"
        _same(original.everything(target), answers)
    finally:
        target.close()


def test_a_database_that_holds_a_home_is_refused_by_name(
    original: Original, database_url: str
) -> None:
    # the suite's database for this test holds a migrated instance and the schema scope_sales
    held = target_holdings(database_url)
    with pytest.raises(ValidationFailed) as refused:
        migrate_home(original.runtime.home, database_url, MIGRATE_SPEC)
    message = refused.value.message
    assert "groundnote: " in message and "scope_sales: " in message
    assert "database.url" in refused.value.remedy
    assert target_holdings(database_url) == held  # nothing written


def _migrate_process(home: Path, url: str, *flags: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "GROUNDNOTE_DATABASE_URL"}
    return subprocess.Popen(
        [sys.executable, "-m", "groundnote", "--home", str(home), "migrate", "--to", url, *flags],
        env={**env, "GROUNDNOTE_SEARCH__SEMANTIC": "off"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _run_state(url: str) -> tuple[Any, ...] | None:
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            return conn.execute("SELECT source, finished_at FROM groundnote.migrate_run").fetchone()
    except psycopg.errors.UndefinedTable:
        return None


@pytest.mark.slow
@pytest.mark.timeout(600)  # three migrate processes; minutes on a loaded machine
def test_a_killed_migrate_is_refused_until_it_is_run_again(
    original: Original, empty_database: str, tmp_path: Path
) -> None:
    # more rows, so that the kill lands while rows are being copied
    scope = original.scope(original.runtime, "nord")
    for n in range(150):
        original.clock.moment += timedelta(seconds=1)
        scope.call("graph.entity_create", scope="nord", type="topic", name=f"Thema {n}", reason="r")
    home = original.runtime.home.path
    original.runtime.close()

    process = _migrate_process(home, empty_database)
    deadline = time.monotonic() + 60
    while _run_state(empty_database) is None:  # begun: the run's row is there, unfinished
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    state = _run_state(empty_database)
    assert state is not None and state[1] is None, "the migrate finished before it was killed"

    with pytest.raises(ConfigError, match="never finished"):
        open_runtime(tmp_path / "target", database_url=empty_database)
    again = _migrate_process(home, empty_database)
    output = again.communicate(timeout=120)[0]
    assert again.returncode == 1 and "an unfinished migrate from" in output, output
    assert "--replace-unfinished" in output

    replaced = _migrate_process(home, empty_database, "--replace-unfinished")
    output = replaced.communicate(timeout=300)[0]
    assert replaced.returncode == 0, output
    assert "verified" in output and "database.url" in output
    reopened = open_runtime(home, clock=original.clock, environ={})
    target = open_runtime(tmp_path / "target", clock=original.clock, database_url=empty_database)
    try:
        _same(original.everything(target), original.everything(reopened))
    finally:
        target.close()
        reopened.close()


KINDS = ("create", "move", "rename", "archive", "link", "review", "source", "rule", "decide")


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 40), st.integers(0, 40))))
def test_any_history_reads_the_same_after_migrate(
    sqlite_only_homes: None, tmp_path_factory: pytest.TempPathFactory, steps: list[Any]
) -> None:
    folder = tmp_path_factory.mktemp("any")
    clock = FixedClock(START)
    source = open_runtime(folder / "home", clock=clock, environ={})
    url = _empty_database()
    try:
        source.home.create_scope("any")
        _, token = make_principal(source, "agent-any", {"any": Right.PROPOSE}, ["mcp", "api"])
        agent = source.authenticate(token)
        assert agent is not None
        play(Scope(source, "any", agent), steps, clock)
        assert migrate_home(source.home, url, MIGRATE_SPEC).problems == []
        target = open_runtime(folder / "target", clock=clock, database_url=url)
        try:
            moved = target.authenticate(token)
            assert moved is not None
            assert reads(Scope(target, "any", moved)) == reads(Scope(source, "any", agent))
        finally:
            target.close()
    finally:
        source.close()
        _drop_database(url)
