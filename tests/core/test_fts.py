"""The full-text projection: a rebuild equals what the writes produced."""

from __future__ import annotations

from groundnote.core import rebuild_fts
from groundnote.core.fts import RULE_COLUMNS, SOURCE_COLUMNS
from groundnote.runtime import Runtime
from groundnote.store.dialect import dialect_of
from tests.conftest import Call
from tests.core.conftest import Decide, mail, meeting, propose


def _index(runtime: Runtime) -> dict[str, list[tuple[object, ...]]]:
    out: dict[str, list[tuple[object, ...]]] = {}
    with runtime.home.scope_db("sales").write() as conn:
        dialect = dialect_of(conn)
        out["rule_fts"] = list(dialect.text_vocabulary(conn, "rule_fts", RULE_COLUMNS))
        out["source_fts"] = list(dialect.text_vocabulary(conn, "source_fts", SOURCE_COLUMNS))
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
    assert ("oesterreich", 1, "statement") in set(before["rule_fts"])
    assert "strasse" in {r[0] for r in before["source_fts"]}
    assert {("oesterreich",), ("strasse",), ("groesse",)} <= set(before["fts_word"])
    with runtime.home.scope_db("sales").write() as conn:
        rebuild_fts(conn)
    assert _index(runtime) == before
