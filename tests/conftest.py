"""Fixtures every test uses: a real home on disk, a scope, an agent's grant, and `call`.

`call(name, **input)` goes through the registry exactly as every surface does (validation,
rights, operation log) and returns the output as JSON-ready data; surface tests use the
fixtures of tests/surfaces/conftest.py for the real transports.

The backend switch: with `GROUNDNOTE_TEST_DATABASE_URL=postgresql://…` (a server where the
user may create databases) every test gets a fresh database `gn_t_<random>`, dropped after
it, and every home a test opens lives there: in this process (`open_runtime` fills
`database.url` in when the home names none, and writes it into the home's groundnote.json
for the processes the test starts with `environ={}`), in the processes a test starts
(`GROUNDNOTE_DATABASE_URL`), and in `groundnote.json` of the `home_path` fixture. The
fresh database is a copy of a template made once a run (see `_Databases`). Tests about
SQLite files themselves carry `@pytest.mark.sqlite_only("why")`; on PostgreSQL they are
deselected and listed with their reason at the end of the run, never skipped silently. Tests
that need a PostgreSQL server whatever the backend (`groundnote migrate` moves a SQLite home
into one) carry `@pytest.mark.postgresql_only("why")`: without the variable they are
deselected and listed the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from groundnote import runtime as runtime_module
from groundnote.auth import Principal, Right, create_grant
from groundnote.config import Config, load_config
from groundnote.domain.clock import FixedClock
from groundnote.runtime import Runtime, open_runtime
from groundnote.store.sql import Connection

Call = Callable[..., dict[str, Any]]

# The suite runs with semantic search off unless a test asks for it, so every test written
# before embeddings existed shows that the off switch gives today's answers exactly: in this
# process (every runtime's configuration) and, through the environment, in the processes
# tests start. tests/core/test_semantic.py turns it on with GROUNDNOTE_SEARCH__SEMANTIC=on.
SEMANTIC_OFF = {"GROUNDNOTE_SEARCH__SEMANTIC": "off"}
os.environ.update(SEMANTIC_OFF)


def _semantic_off_unless_asked(
    home: Path, environ: dict[str, str] | None = None, *, database_url: str | None = None
) -> Config:
    merged = {**SEMANTIC_OFF, **(os.environ if environ is None else environ)}
    return load_config(home, merged, database_url=database_url)


runtime_module.load_config = _semantic_off_unless_asked  # type: ignore[assignment]
TEST_DATABASE_URL = os.environ.get("GROUNDNOTE_TEST_DATABASE_URL") or None
_SQLITE_ONLY: list[tuple[str, str]] = []
_POSTGRESQL_ONLY: list[tuple[str, str]] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): about SQLite files themselves; on PostgreSQL deselected and "
        "listed with the reason",
    )
    config.addinivalue_line(
        "markers",
        "postgresql_only(reason): needs a PostgreSQL server; without "
        "GROUNDNOTE_TEST_DATABASE_URL deselected and listed with the reason",
    )
    config.addinivalue_line(
        "markers",
        "database_per_module: the module's tests share one database (a module-scoped home "
        "opened with `module_database_url`)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, dropped = [], []
    for item in items:
        for marker_name, drop_when_on_postgresql, listed in (
            ("sqlite_only", True, _SQLITE_ONLY),
            ("postgresql_only", False, _POSTGRESQL_ONLY),
        ):
            marker = item.get_closest_marker(marker_name)
            if marker is None:
                continue
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason")
            if not reason:
                raise pytest.UsageError(f"{item.nodeid}: {marker_name} needs a reason")
            if (TEST_DATABASE_URL is not None) == drop_when_on_postgresql:
                dropped.append(item)
                listed.append((item.nodeid, str(reason)))
                break
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TEST_DATABASE_URL is None:
        if _POSTGRESQL_ONLY:
            terminalreporter.section("backend: SQLite")
            terminalreporter.write_line(
                f"{len(_POSTGRESQL_ONLY)} postgresql_only tests deselected "
                "(set GROUNDNOTE_TEST_DATABASE_URL to run them):"
            )
            for nodeid, reason in _POSTGRESQL_ONLY:
                terminalreporter.write_line(f"  {nodeid}: {reason}")
        return
    terminalreporter.section("backend: PostgreSQL")
    terminalreporter.write_line(f"every test on a fresh database at {_redacted(TEST_DATABASE_URL)}")
    if _SQLITE_ONLY:
        terminalreporter.write_line(f"{len(_SQLITE_ONLY)} sqlite_only tests deselected:")
        for nodeid, reason in _SQLITE_ONLY:
            terminalreporter.write_line(f"  {nodeid}: {reason}")


def _redacted(url: str) -> str:
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def _with_database(url: str, name: str) -> str:
    """`url` naming the database `name` instead of its own."""
    base, _, query = url.partition("?")
    scheme, _, rest = base.partition("://")
    authority = rest.split("/", 1)[0]
    return f"{scheme}://{authority}/{name}" + (f"?{query}" if query else "")


class _Databases:
    """This run's databases on the test server. Each test gets a copy of a template holding
    what opening a new home makes first (the migrated instance schema) and the migrated
    schema of scope `sales`, not registered: most tests create that scope first, and
    `create_scope` then registers it and finds its migrations applied, as a second process
    opening an existing scope does (tests of other names migrate a schema in the test).
    Copies are made ahead and used ones dropped on threads of their own, so a test waits
    for neither."""

    AHEAD = 2

    def __init__(self, server: str) -> None:
        self.server = server
        self.template = f"gn_t_tpl_{uuid.uuid4().hex[:12]}"
        self._admin(
            f'CREATE DATABASE "{self.template}" TEMPLATE template0 STRATEGY FILE_COPY '
            "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
            # a test's database outlives no crash: its commits need not wait for the disk
            f'ALTER DATABASE "{self.template}" SET synchronous_commit = off',
        )
        url = _with_database(server, self.template)
        with tempfile.TemporaryDirectory() as folder:
            made = open_runtime(Path(folder), environ={}, database_url=url)
            made.home.create_scope("sales")
            with made.home.instance.write() as conn:
                conn.execute("DELETE FROM scope")
            made.close()
        _close_pools(url)
        self._ready: queue.Queue[str] = queue.Queue(maxsize=self.AHEAD)
        self._dropping: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._make_ahead, name="make test dbs", daemon=True),
            threading.Thread(target=self._drop_all, name="drop test dbs"),
        ]
        for thread in self._threads:
            thread.start()

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as admin:
            for statement in statements:
                admin.execute(statement)  # type: ignore[arg-type]

    def _strategy(self) -> str:
        """How a copy is made. FILE_COPY copies the template's files but checkpoints twice, which
        on a server that syncs to disk took 0.8-3.8 s a copy here; WAL_LOG writes the copy
        through the WAL, 0.1-0.2 s on that server, but is the slower of the two (0.13 s against
        0.07 s) on a test cluster that never syncs (scripts/with-postgres: fsync off)."""
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as admin:
            row = admin.execute("SHOW fsync").fetchone()
        return "FILE_COPY" if row is not None and row[0] == "off" else "WAL_LOG"

    def _make_ahead(self) -> None:
        strategy = self._strategy()
        while not self._stop.is_set():
            name = f"gn_t_{uuid.uuid4().hex[:16]}"
            self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}" STRATEGY {strategy}')
            self._ready.put(_with_database(self.server, name))

    def fresh(self) -> str:
        return self._ready.get(timeout=120)

    def drop(self, url: str) -> None:
        _close_pools(url)
        self._dropping.put(_database_name(url))

    def _drop_all(self) -> None:
        while (name := self._dropping.get()) is not None:
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        self._stop.set()
        while self._threads[0].is_alive():  # unblock the maker; drop what it made ahead
            with contextlib.suppress(queue.Empty):
                self._dropping.put(_database_name(self._ready.get(timeout=0.1)))
        while not self._ready.empty():
            self._dropping.put(_database_name(self._ready.get()))
        self._dropping.put(None)
        self._threads[1].join()
        self._admin(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')


def _database_name(url: str) -> str:
    return url.rsplit("/", 1)[1].split("?")[0]


def _close_pools(url: str) -> None:
    from groundnote.store.postgres import close_pools

    close_pools(url)


@pytest.fixture(scope="session")
def _databases() -> Iterator[_Databases | None]:
    if TEST_DATABASE_URL is None:
        yield None
        return
    from tests.citus.databases import CitusDatabases, is_citus

    databases: Any = (
        CitusDatabases(TEST_DATABASE_URL)
        if is_citus(TEST_DATABASE_URL)
        else _Databases(TEST_DATABASE_URL)
    )
    yield databases
    databases.close()


@pytest.fixture(scope="module")
def module_database_url(_databases: _Databases | None) -> Iterator[str | None]:
    """One database for a module's tests (marked `database_per_module`), for a home its
    module-scoped fixture opens; None on SQLite."""
    if _databases is None:
        yield None
        return
    url = _databases.fresh()
    yield url
    _databases.drop(url)


@pytest.fixture
def other_database_url(_databases: _Databases | None) -> Iterator[str | None]:
    """A second fresh database, for a test whose two homes must not share one (give it to
    `home_on_database`); None on SQLite, where each home has its own files anyway."""
    if _databases is None:
        yield None
        return
    url = _databases.fresh()
    yield url
    _databases.drop(url)


def _name_in_config(home: Path, url: str) -> None:
    """Add `database.url` to the home's groundnote.json, keeping what else it says."""
    path = home / "groundnote.json"
    data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    data.setdefault("database", {})["url"] = url
    home.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def home_on_database(path: Path, url: str | None) -> Path:
    """Make `path` a home whose groundnote.json names `url` (nothing on SQLite), so that the
    processes a test starts on it find the same database."""
    if url is not None:
        path.mkdir(parents=True, exist_ok=True)
        (path / "groundnote.json").write_text(json.dumps({"database": {"url": url}}))
    return path


@pytest.fixture(autouse=True)
def database_url(
    request: pytest.FixtureRequest, _databases: _Databases | None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str | None]:
    """The fresh PostgreSQL database of this test, or of its module (`database_per_module`);
    None: the test runs on SQLite files."""
    if _databases is None:
        yield None
        return
    shared = request.node.get_closest_marker("database_per_module") is not None
    url = request.getfixturevalue("module_database_url") if shared else _databases.fresh()
    monkeypatch.setenv("GROUNDNOTE_DATABASE_URL", url)

    def load_with_database(
        home: Path, environ: dict[str, str] | None = None, *, database_url: str | None = None
    ) -> Config:
        config = _semantic_off_unless_asked(home, environ, database_url=database_url)
        if config.database.url is None:
            config.database = config.database.model_copy(update={"url": url})
            _name_in_config(home, url)  # for the processes a test starts with environ={}
        return config

    monkeypatch.setattr(runtime_module, "load_config", load_with_database)
    yield url
    if not shared:
        _databases.drop(url)


@pytest.fixture
def clock() -> FixedClock:
    """A clock the test moves by hand: `clock.moment = ...`."""
    return FixedClock(datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC))


@pytest.fixture
def home_path(tmp_path: Path, database_url: str | None) -> Path:
    return home_on_database(tmp_path / "home", database_url)


@pytest.fixture
def runtime(home_path: Path, clock: FixedClock) -> Iterator[Runtime]:
    rt = open_runtime(home_path, clock=clock, environ={})
    yield rt
    rt.close()


@pytest.fixture
def scope(runtime: Runtime) -> str:
    runtime.home.create_scope("sales")
    return "sales"


def raw_connection(runtime: Runtime, scope: str | None = None) -> Connection:
    """A connection of its own on a scope's unit (None: the instance's), around the store's
    handles and their gate, as another process's would be; the caller closes it."""
    home = runtime.home
    if home.database_url is None:
        from groundnote.store.sqlite import connect

        return connect(home.path / "instance.db" if scope is None else home.scope_path(scope))
    from groundnote.store.postgres import connect as connect_schema
    from groundnote.store.schemas import INSTANCE_SCHEMA, schema_for

    return connect_schema(
        home.database_url, INSTANCE_SCHEMA if scope is None else schema_for(scope)
    )


def begin_holding_the_write_lock(conn: Connection) -> None:
    """Begin a transaction on a raw connection that holds its unit's cross-process write lock
    (SQLite's, or the schema's gate row), as another process's writer does."""
    if conn.backend == "sqlite":
        conn.execute("BEGIN IMMEDIATE")
    else:
        conn.execute("BEGIN; SELECT id FROM store_gate WHERE id = 1 FOR UPDATE")


def make_principal(
    runtime: Runtime, name: str, rights: dict[str, Right], channels: list[str]
) -> tuple[Principal, str]:
    _, token = create_grant(
        runtime.home.instance,
        name,
        rights=rights,
        channels=channels,
        org="local",
        now=runtime.home.clock.instant(),
    )
    principal = runtime.authenticate(token)
    assert principal is not None
    return principal, token


@pytest.fixture
def agent_token(runtime: Runtime, scope: str) -> str:
    return make_principal(runtime, "agent", {scope: Right.PROPOSE}, ["mcp", "api", "cli"])[1]


@pytest.fixture
def agent(runtime: Runtime, agent_token: str) -> Principal:
    principal = runtime.authenticate(agent_token)
    assert principal is not None
    return principal


@pytest.fixture
def call(runtime: Runtime, agent: Principal) -> Call:
    def invoke(name: str, /, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=agent, channel=channel)
        return out.model_dump(mode="json")

    return invoke


def mcp_body(result: Any) -> dict[str, Any]:
    """The body of an MCP tool result: an answer's structured content, or a refusal's JSON
    text (refusals carry no structured content; see surfaces/mcp/server.py `error_result`)."""
    if result.is_error:
        assert result.structured_content is None, "a refusal must not carry structured content"
        data: dict[str, Any] = json.loads(result.content[0].text)
        return data
    assert isinstance(result.structured_content, dict)
    return result.structured_content
