"""The full-text projection: a rebuild equals what the writes produced."""

from __future__ import annotations

from groundnote.core import rebuild_fts
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.core.conftest import Decide, mail, meeting, propose


def _index(runtime: Runtime) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    with runtime.home.scope_db("sales").write() as conn:
        for table in ("rule_fts", "source_fts"):
            conn.execute(
                f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, 'instance')"
            )
            out[table] = [
                tuple(r) for r in conn.execute(f"SELECT * FROM temp.v_{table} ORDER BY 1, 2, 3, 4")
            ]
            conn.execute(f"DROP TABLE temp.v_{table}")
        out["fts_word"] = [tuple(r) for r in conn.execute("SELECT word FROM fts_word ORDER BY 1")]
    return out


def test_a_rebuild_equals_the_incremental_index(
    call: Call, decide: Decide, runtime: Runtime
) -> None:
    call(
        "core.store_source",
        scope="sales",
        source=mail(
            1,
            attachments=[
                {"filename": "a.txt", "media_type": "text/plain", "text": "Straße und Größe"}
            ],
        ),
    )
    call("core.store_source", scope="sales", source=meeting("k1"))
    propose(call, "Lieferungen nach Österreich über Huber.", ["source/jamie:k1"])
    propose(call, "Rabatt Nord drei Prozent.", ["source/mail:<m1@example.org>"])
    before = _index(runtime)
    assert before["rule_fts"] and before["source_fts"]
    assert ("oesterreich", "statement") in {(r[0], r[2]) for r in before["rule_fts"]}
    assert "strasse" in {r[0] for r in before["source_fts"]}
    assert {("oesterreich",), ("strasse",), ("groesse",)} <= set(before["fts_word"])
    with runtime.home.scope_db("sales").write() as conn:
        rebuild_fts(conn)
    assert _index(runtime) == before
