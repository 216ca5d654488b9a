"""After a bulk load the planner's statistics are refreshed (`Database.analyze`, called by
import and migrate): on PostgreSQL each table of the schema has been analysed, with the row
counts the load left, so the first reads are planned for them."""

from __future__ import annotations

import pytest
from bench.transfer import synthetic_export

from groundnote.runtime import SCOPE_TRANSFER, Runtime
from groundnote.store.transfer import import_lines

pytestmark = pytest.mark.postgresql_only("planner statistics per table are PostgreSQL's")


def test_analyze_after_an_import_counts_the_loaded_rows(runtime: Runtime, scope: str) -> None:
    db = runtime.home.scope_db(scope)
    with db.write() as conn:
        import_lines(conn, SCOPE_TRANSFER, scope, synthetic_export(scope, 300))
    db.analyze()
    with db.read() as conn:
        rows = {
            r[0]: (r[1], r[2])
            for r in conn.execute(
                "SELECT relname, last_analyze IS NOT NULL, n_live_tup FROM pg_stat_user_tables "
                "WHERE schemaname = current_schema()"
            )
        }
    tables = db.tables()
    assert set(tables) <= set(rows)
    assert all(rows[t][0] for t in tables), rows
    assert rows["entity"] == (True, 300)
