"""Groundnote's sessions price an index's page reads for memory and SSD (random_page_cost 1.1,
store/postgres.py) unless the administrator chose a value, which is kept."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from groundnote.domain.clock import FixedClock
from groundnote.runtime import Runtime, open_runtime

pytestmark = pytest.mark.postgresql_only("the planner's costs are PostgreSQL's")


def _page_cost(runtime: Runtime, scope: str) -> str:
    with runtime.home.scope_db(scope).read() as conn:
        return str(conn.execute("SHOW random_page_cost").fetchone()[0])


def test_a_server_left_at_its_default_plans_for_memory_and_ssd(
    runtime: Runtime, scope: str
) -> None:
    assert _page_cost(runtime, scope) == "1.1"


def test_a_value_set_for_the_database_is_kept(
    home_path: Path, clock: FixedClock, database_url: str
) -> None:
    # before the runtime opens: a database's settings reach the connections opened after them
    name = psycopg.conninfo.conninfo_to_dict(database_url)["dbname"]
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET random_page_cost = 3')
    runtime = open_runtime(home_path, clock=clock, environ={})
    try:
        runtime.home.create_scope("sales")
        assert _page_cost(runtime, "sales") == "3"
    finally:
        runtime.close()
