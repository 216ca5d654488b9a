"""Tenancy as a second line of defence (issue 20 item 8): on PostgreSQL each schema is owned by
a role of its own, and a connection serving one scope runs as its role, so it cannot read or
write another scope's tables, nor the instance's, even when a query names them."""

from __future__ import annotations

import pytest

from groundnote.runtime import Runtime
from groundnote.store.changes import record
from groundnote.store.sql import StoreError

pytestmark = pytest.mark.postgresql_only(
    "schema privileges are PostgreSQL's; on SQLite each scope is a file of its own"
)


@pytest.fixture
def two(runtime: Runtime) -> Runtime:
    for name in ("alpha", "beta"):
        runtime.home.create_scope(name)
    return runtime


def test_a_scope_connection_reads_its_own_tables_and_no_other_schema(two: Runtime) -> None:
    alpha = two.home.scope_db("alpha")
    with alpha.read() as conn:
        assert conn.execute("SELECT scope FROM meta").fetchone()[0] == "alpha"
        for foreign in ("scope_beta.meta", "groundnote.grant_", "groundnote.scope"):
            with pytest.raises(StoreError, match="permission denied"):
                conn.execute(f"SELECT count(*) FROM {foreign}")
    with pytest.raises(StoreError, match="permission denied"), alpha.write() as conn:
        conn.execute("INSERT INTO scope_beta.change_record (seq, kind, ref) VALUES (99, 'x', 'y')")
    with alpha.write() as conn:  # its own work passes, after the refusals, on the same pool
        record(conn, "test", "mine")
    with two.home.scope_db("beta").read() as conn:
        assert conn.execute("SELECT scope FROM meta").fetchone()[0] == "beta"
        assert conn.execute("SELECT count(*) FROM change_record WHERE seq = 99").fetchone()[0] == 0
    with alpha.read() as conn:
        assert (
            conn.execute("SELECT ref FROM change_record ORDER BY seq DESC").fetchone()[0] == "mine"
        )


def test_the_instance_connection_reads_no_scope(two: Runtime) -> None:
    with two.home.instance.read() as conn:
        assert conn.execute("SELECT count(*) FROM scope").fetchone()[0] == 2
        with pytest.raises(StoreError, match="permission denied"):
            conn.execute("SELECT count(*) FROM scope_alpha.source")


def test_each_schema_is_owned_by_its_role_and_a_checkout_runs_as_it(two: Runtime) -> None:
    with two.home.scope_db("alpha").read() as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "gn_scope_alpha"
    with two.home.instance.read() as conn:
        assert conn.execute("SELECT current_user").fetchone()[0] == "gn_groundnote"
        owners = conn.execute(
            "SELECT DISTINCT n.nspname, pg_get_userbyid(c.relowner) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname IN ('scope_alpha', 'scope_beta', 'groundnote') "
            "AND c.relkind IN ('r', 'v') ORDER BY 1"
        ).fetchall()
    assert [tuple(r) for r in owners] == [
        ("groundnote", "gn_groundnote"),
        ("scope_alpha", "gn_scope_alpha"),
        ("scope_beta", "gn_scope_beta"),
    ]
