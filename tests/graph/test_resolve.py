"""Normalisation (§5.1) and resolve (§5.2–5.3) with the G2 examples, and the recall index."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundnote.domain.errors import GroundnoteError
from groundnote.graph.fts import literal_recall
from groundnote.graph.normalize import MAX_CHARS, normalize
from groundnote.graph.trigram import index_for
from groundnote.runtime import Runtime
from tests.conftest import Call


@pytest.mark.parametrize(
    ("given_text", "expected"),
    [
        ("Müller GmbH", "mueller"),
        ("Mueller GmbH", "mueller"),
        ("MÜLLER  gmbh & Co. KG", "mueller"),
        ("Straße", "strasse"),
        ("Café Zoë", "cafe zoe"),
        ("Sportverein e.V.", "sportverein"),
        ("GmbH", "gmbh"),
        ("Vertrieb-Nord/Ost", "vertrieb nord ost"),
        ("ﬁrma", "firma"),
    ],
)
def test_normalize(given_text: str, expected: str) -> None:
    assert normalize(given_text) == expected


@given(st.text(max_size=60))
def test_normalize_is_idempotent_and_clean(text: str) -> None:
    key = normalize(text)
    assert normalize(key) == key
    assert key == key.strip() and "  " not in key


@pytest.fixture
def tree(call: Call) -> dict[str, str]:
    top = call("graph.entity_create", scope="sales", type="organisation", name="Müller GmbH")
    org = top["entity"]["id"]
    vn = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Vertrieb Nord",
        aliases=["VN"],
        parent_id=org,
    )["entity"]["id"]
    vs = call(
        "graph.entity_create", scope="sales", type="department", name="Vertrieb Süd", parent_id=org
    )["entity"]["id"]
    return {"org": org, "vn": vn, "vs": vs}


def best(call: Call, q: str, **extra: str) -> dict[str, object]:
    out = call("graph.entity_resolve", scope="sales", q=q, **extra)
    assert out["candidates"], q
    first: dict[str, object] = out["candidates"][0]
    return first


def test_g2_examples(call: Call, tree: dict[str, str]) -> None:
    assert best(call, "Mueller GmbH")["match"] == "exact"
    typo = best(call, "Vetrieb Nord")
    assert (typo["id"], typo["match"]) == (tree["vn"], "typo")
    alias = best(call, "VN")
    assert (alias["id"], alias["match"]) == (tree["vn"], "alias")
    tokens = best(call, "Nord Vertrieb")
    assert (tokens["id"], tokens["match"]) == (tree["vn"], "tokens")
    assert best(call, "Vertrieb Sued")["path"] == ["Müller GmbH", "Vertrieb Süd"]
    vs = best(call, "VS")
    assert (vs["id"], vs["match"]) == (tree["vs"], "initials")


def test_nord_is_no_duplicate_of_nordwest(call: Call) -> None:
    call("graph.entity_create", scope="sales", type="department", name="Nordwest")
    out = call("graph.entity_create", scope="sales", type="department", name="Nord")
    assert out["created"]


def test_answer_guides_by_match(call: Call, tree: dict[str, str]) -> None:
    exact = call("graph.entity_resolve", scope="sales", q="Vertrieb Nord")
    assert [n["tool"] for n in exact["next"]] == ["entity_path", "link_propose"]
    assert [p["name"] for p in exact["path"]] == ["Müller GmbH", "Vertrieb Nord"]
    close = call("graph.entity_resolve", scope="sales", q="Vertrieb Nrd Ost")
    assert [n["tool"] for n in close["next"]] == ["entity_path", "entity_create"]
    none = call("graph.entity_resolve", scope="sales", q="Zebra")
    assert none["candidates"] == []
    assert [n["tool"] for n in none["next"]] == ["entity_tree", "entity_create"]


def test_type_filter_and_at_most_five(call: Call) -> None:
    for i in range(8):
        call(
            "graph.entity_create",
            scope="sales",
            type="project",
            name=f"Projekt {i}",
            force=True,
            reason="numbered",
        )
    out = call("graph.entity_resolve", scope="sales", q="Projekt 1")
    assert len(out["candidates"]) == 5
    assert out["candidates"][0]["name"] == "Projekt 1"
    none = call("graph.entity_resolve", scope="sales", q="Projekt 1", type="person")
    assert none["candidates"] == []


def test_bounds_hold_after_normalisation(call: Call) -> None:
    ligature = "\ufdfa"  # NFKC turns this one character into 18 letters and spaces
    assert len(normalize(ligature)) == 18
    with pytest.raises(GroundnoteError) as exc:
        call("graph.entity_resolve", scope="sales", q=ligature * 15)
    assert exc.value.code == "validation-failed" and exc.value.status == 400
    with pytest.raises(GroundnoteError) as exc:
        call("graph.entity_resolve", scope="sales", q="x" * (MAX_CHARS + 1))
    assert exc.value.code == "validation-failed"
    with pytest.raises(GroundnoteError) as exc:
        call("graph.entity_resolve", scope="sales", q="!!!")
    assert exc.value.code == "validation-failed"


def test_literal_recall_quotes_user_text(runtime: Runtime, tree: dict[str, str]) -> None:
    db = runtime.home.scope_db("sales")
    with db.read() as conn:
        assert literal_recall(conn, 'ver"trieb nord OR x*') is not None
        seqs = literal_recall(conn, normalize("Vertrieb Nord"))
    assert seqs[0] == 2


def test_index_follows_commits_not_rollbacks(runtime: Runtime, call: Call) -> None:
    call("graph.entity_create", scope="sales", type="organisation", name="Alpha")
    db = runtime.home.scope_db("sales")
    index = index_for(db)
    assert len(index) == 1
    with pytest.raises(GroundnoteError):
        call("graph.entity_create", scope="sales", type="organisation", name="Alpha")
    assert len(index) == 1

    def many(start: int) -> None:
        for i in range(start, start + 10):
            call(
                "graph.entity_create",
                scope="sales",
                type="project",
                name=f"Vorhaben {i:03d}x",
                force=True,
                reason="a series",
            )

    threads = [threading.Thread(target=many, args=(n * 100,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(index) == 31
    with db.read() as conn:
        stored = {r[0] for r in conn.execute("SELECT rowid FROM entity_fts")}
    assert {seq for seq in stored if index.texts(seq)} == stored
    call("graph.entity_update", scope="sales", id="sales-e0001", name="Alphabet")
    assert index.exact("alphabet") == {1} and index.exact("alpha") == set()
