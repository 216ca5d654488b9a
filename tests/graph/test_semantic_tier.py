"""entity_resolve's last tier (issue 19) with the shipped local model (no mocks): it suggests a
name spelling cannot find, never outranks or joins spelling, never blocks a create, follows
renames and archives, and the off switch gives today's answers exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Right
from groundnote.domain.clock import FixedClock
from groundnote.embedding import embedder_for
from groundnote.graph.name_vectors import name_vector_drift, name_vectors, rebuild_name_vectors
from groundnote.graph.resolve import MIN_SCORE
from groundnote.graph.scoring import DUPLICATE_SCORE
from groundnote.runtime import Runtime, open_runtime
from tests.conftest import Call, make_principal
from tests.graph.helpers import archive

ON = {"GROUNDNOTE_SEARCH__SEMANTIC": "on"}
DEPARTMENTS = ["Buchhaltung", "Personalabteilung", "Einkauf", "Kundendienst", "Rechtsabteilung"]


@pytest.fixture
def semantic(home_path: Path, clock: FixedClock) -> Iterator[Runtime]:
    rt = open_runtime(home_path, clock=clock, environ=ON)
    rt.home.create_scope("sales")
    yield rt
    rt.close()


@pytest.fixture
def ask(semantic: Runtime) -> Call:
    principal = semantic.authenticate(
        make_principal(semantic, "agent", {"sales": Right.PROPOSE}, ["mcp"])[1]
    )

    def invoke(name: str, /, **raw: Any) -> dict[str, Any]:
        out = semantic.invoke(semantic.registry.get(name), raw, principal=principal, channel="mcp")
        return out.model_dump(mode="json")

    return invoke


@pytest.fixture
def tree(ask: Call) -> dict[str, str]:
    org = ask("graph.entity_create", scope="sales", type="organisation", name="Müller GmbH")
    ids = {"Müller GmbH": org["entity"]["id"]}
    for name in DEPARTMENTS:
        made = ask(
            "graph.entity_create",
            scope="sales",
            type="department",
            name=name,
            parent_id=ids["Müller GmbH"],
        )
        ids[name] = made["entity"]["id"]
    return ids


def _found(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["name"], c["match"]) for c in answer["candidates"]]


def test_a_name_spelling_cannot_find_is_suggested_and_marked_semantic(
    ask: Call, tree: dict[str, str], semantic: Runtime
) -> None:
    semantic.config.search.semantic = "off"
    assert ask("graph.entity_resolve", scope="sales", q="accounting")["candidates"] == []
    semantic.config.search.semantic = "on"
    answer = ask("graph.entity_resolve", scope="sales", q="accounting")
    assert _found(answer)[0] == ("Buchhaltung", "semantic")
    best = answer["candidates"][0]
    assert best["id"] == tree["Buchhaltung"]
    assert best["path"] == ["Müller GmbH", "Buchhaltung"]
    assert all(c["score"] < MIN_SCORE for c in answer["candidates"])
    assert "ask whether it is the one meant" in answer["next"][0]["why"]
    # Across languages the other way, with the type filter applied to the tier too.
    answer = ask("graph.entity_resolve", scope="sales", q="human resources", type="department")
    assert _found(answer)[0] == ("Personalabteilung", "semantic")
    assert ask("graph.entity_resolve", scope="sales", q="human resources", type="person") == {
        **ask("graph.entity_resolve", scope="sales", q="Zebra"),
    }


def test_spelling_answers_are_never_joined_by_the_tier(ask: Call, tree: dict[str, str]) -> None:
    for q in ["Buchhaltung", "Buchhaltnug", "Müller", "Einkauf"]:
        answer = ask("graph.entity_resolve", scope="sales", q=q)
        assert answer["candidates"], q
        assert all(c["match"] != "semantic" for c in answer["candidates"]), q
    # Nothing near enough: no suggestion rather than a guess.
    assert ask("graph.entity_resolve", scope="sales", q="Zebra")["candidates"] == []


def test_a_create_whose_only_neighbour_is_semantic_goes_through(
    ask: Call, tree: dict[str, str]
) -> None:
    answer = ask("graph.entity_resolve", scope="sales", q="Accounting")
    assert _found(answer) == [("Buchhaltung", "semantic")]
    assert answer["candidates"][0]["score"] < DUPLICATE_SCORE
    made = ask(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Accounting",
        parent_id=tree["Müller GmbH"],
    )
    assert made["similar"] == []
    assert _found(ask("graph.entity_resolve", scope="sales", q="Accounting"))[0] == (
        "Accounting",
        "exact",
    )


def test_the_off_switch_gives_todays_answers_exactly(
    ask: Call, tree: dict[str, str], semantic: Runtime
) -> None:
    queries = ["Buchhaltung", "Buchhaltnug", "accounting", "human resources", "Zebra", "VN"]
    semantic.config.search.semantic = "off"
    before = [ask("graph.entity_resolve", scope="sales", q=q) for q in queries]
    semantic.config.search.semantic = "on"
    during = [ask("graph.entity_resolve", scope="sales", q=q) for q in queries]
    assert during != before  # the tier answered, and its vectors are in the store now
    semantic.config.search.semantic = "off"
    assert [ask("graph.entity_resolve", scope="sales", q=q) for q in queries] == before


def test_the_tier_follows_a_rename_and_an_archive(
    ask: Call, tree: dict[str, str], semantic: Runtime
) -> None:
    assert _found(ask("graph.entity_resolve", scope="sales", q="accounting"))[0][0] == (
        "Buchhaltung"
    )
    ask("graph.entity_update", scope="sales", id=tree["Buchhaltung"], name="Fuhrpark")
    answer = ask("graph.entity_resolve", scope="sales", q="accounting")
    assert tree["Buchhaltung"] not in [c["id"] for c in answer["candidates"]]
    assert _found(ask("graph.entity_resolve", scope="sales", q="legal department"))[0] == (
        "Rechtsabteilung",
        "semantic",
    )
    archive(semantic, "sales", tree["Rechtsabteilung"])
    names = [n for n, _ in _found(ask("graph.entity_resolve", scope="sales", q="legal department"))]
    assert "Rechtsabteilung" not in names
    db = semantic.home.scope_db("sales")
    embedder = embedder_for(semantic.config.search)
    name_vectors(db, embedder).catch_up(limit=None)
    with db.read() as conn:
        texts = {r[0] for r in conn.execute("SELECT text FROM entity_vector")}
    assert texts == {"Müller GmbH", "Fuhrpark", *DEPARTMENTS} - {"Buchhaltung"}


def test_check_names_missing_and_stale_vectors_and_rebuild_clears_them(
    ask: Call, tree: dict[str, str], semantic: Runtime
) -> None:
    db = semantic.home.scope_db("sales")
    embedder = embedder_for(semantic.config.search)
    drift = name_vector_drift(db, embedder, "sales")
    assert drift == [
        f"6 entity names lack a vector of {embedder.model_id}; "
        "run `groundnote rebuild vectors --scope sales`"
    ]
    assert rebuild_name_vectors(db, embedder) == 6
    assert name_vector_drift(db, embedder, "sales") == []
    with db.write() as conn:
        conn.execute(
            "INSERT INTO entity_vector (seq, text, model, dim, vector) "
            "SELECT seq, 'Altname', model, dim, vector FROM entity_vector LIMIT 1"
        )
    assert name_vector_drift(db, embedder, "sales") == [
        "1 entity vectors belong to no current name or alias; "
        "run `groundnote rebuild vectors --scope sales`"
    ]
