"""Semantic search with the shipped local model (no mocks): hybrid answers, the vector
projection (rebuild equals incremental, a model change re-embeds), and the off switch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from groundnote.auth import Right
from groundnote.config import SearchConfig
from groundnote.core.vectors import rebuild_vectors, vector_drift, vector_index
from groundnote.domain.clock import FixedClock
from groundnote.embedding import embedder_for
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.cli.main import cli
from tests.conftest import Call, make_principal
from tests.core.conftest import mail, propose

ON = {"GROUNDNOTE_SEARCH__SEMANTIC": "on"}

RULES = [
    "Rechnungen an Großkunden sind innerhalb von 30 Tagen fällig.",
    "Besucher melden sich am Empfang an und tragen einen Ausweis.",
    "Urlaub wird mindestens zwei Wochen vorher beim Teamleiter beantragt.",
    "Die Kantine hat werktags von 11:30 bis 14:00 Uhr geöffnet.",
    "Dienstreisen ins Ausland genehmigt die Geschäftsführung.",
    "Passwords are changed every ninety days.",
]
PARAPHRASE = "Wie lange haben große Abnehmer Zeit zum Bezahlen?"


@pytest.fixture
def semantic(home_path: Path, clock: FixedClock) -> Iterator[Runtime]:
    rt = open_runtime(home_path, clock=clock, environ=ON)
    rt.home.create_scope("sales", approval_mode="auto")
    yield rt
    rt.close()


@pytest.fixture
def ask(semantic: Runtime) -> Call:
    principal = semantic.authenticate(
        make_principal(semantic, "agent", {"sales": Right.PROPOSE}, ["mcp", "api", "cli"])[1]
    )

    def invoke(name: str, /, channel: str = "api", **raw: Any) -> dict[str, Any]:
        cap = semantic.registry.get(name)
        out = semantic.invoke(cap, raw, principal=principal, channel=channel)
        return out.model_dump(mode="json")

    return invoke


@pytest.fixture
def rules(ask: Call) -> list[str]:
    ask("core.store_source", scope="sales", source=mail(1))
    return [propose(ask, text, ["source/mail:<m1@example.org>"])["id"] for text in RULES]


def _heads(answer: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(b["head"]["id"], b["head"]["match"]) for b in answer["bundles"]]


def test_a_paraphrase_full_text_misses_is_found_and_marked_semantic(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    semantic.config.search.semantic = "off"
    assert _heads(ask("core.search", scope="sales", query=PARAPHRASE)) == []
    semantic.config.search.semantic = "on"
    heads = _heads(ask("core.search", scope="sales", query=PARAPHRASE))
    assert heads[0] == (rules[0], "semantic")


def test_across_languages_an_english_question_finds_a_german_rule(
    ask: Call, rules: list[str]
) -> None:
    heads = _heads(ask("core.search", scope="sales", query="When must key accounts pay invoices?"))
    assert heads[0][0] == rules[0]


def test_exact_words_stay_first_and_are_found_by_both(ask: Call, rules: list[str]) -> None:
    heads = _heads(ask("core.search", scope="sales", query="Kantine geöffnet"))
    assert heads[0] == (rules[3], "both")


def test_the_compact_form_carries_the_match(ask: Call, rules: list[str]) -> None:
    answer = ask("core.search", scope="sales", query=PARAPHRASE, channel="mcp")
    assert answer["form"] == "compact"
    assert answer["bundles"][0]["head"]["match"] == "semantic"


def test_the_off_switch_gives_the_full_text_answer_exactly(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    queries = ["Kantine", "Urlaub beantragen Teamleiter", "Ausweis Empfang Besucher", PARAPHRASE]
    semantic.config.search.semantic = "off"
    before = [ask("core.search", scope="sales", query=q) for q in queries]
    semantic.config.search.semantic = "on"
    ask("core.search", scope="sales", query="Kantine")  # vectors exist now; off must ignore them
    semantic.config.search.semantic = "off"
    after = [ask("core.search", scope="sales", query=q) for q in queries]
    strip = [{k: v for k, v in a.items() if k != "search_id"} for a in before]
    assert [{k: v for k, v in a.items() if k != "search_id"} for a in after] == strip
    assert all(b["head"]["match"] is None for a in after for b in a["bundles"])


def test_vectors_written_lazily_equal_a_rebuild(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    db = semantic.home.scope_db("sales")
    ask("core.search", scope="sales", query="Kantine")
    lazy = _vectors(semantic)
    assert len(lazy) == len(RULES) + 1  # the rules and the mail
    embedder = embedder_for(semantic.config.search)
    assert rebuild_vectors(db, embedder) == len(RULES) + 1
    rebuilt = _vectors(semantic)
    assert lazy.keys() == rebuilt.keys()
    for key, vector in lazy.items():
        assert float(vector @ rebuilt[key]) > 0.9999
    assert vector_drift(db, embedder, "sales") == []


def test_a_new_rule_is_searchable_at_once(ask: Call, rules: list[str]) -> None:
    ask("core.search", scope="sales", query="Kantine")
    new = propose(
        ask,
        "Firmenwagen werden jeden Freitag vollgetankt zurückgegeben.",
        ["source/mail:<m1@example.org>"],
    )
    heads = _heads(
        ask("core.search", scope="sales", query="Dienstauto am Ende der Woche auftanken")
    )
    assert heads[0][0] == new["id"]


def test_a_change_of_model_re_embeds_and_never_mixes(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    db = semantic.home.scope_db("sales")
    ask("core.search", scope="sales", query="Kantine")
    embedder = embedder_for(semantic.config.search)
    with db.write() as conn:
        conn.execute("UPDATE text_vector SET model = 'old-model' WHERE kind = 'rule'")
    drift = vector_drift(db, embedder, "sales")
    assert any("vectors are of model old-model" in p for p in drift)
    assert any(f"{len(RULES)} rules lack a vector of {embedder.model_id}" in p for p in drift)
    rebuild_vectors(db, embedder)
    with db.read() as conn:
        models = [r[0] for r in conn.execute("SELECT DISTINCT model FROM text_vector")]
    assert models == [embedder.model_id]
    assert vector_drift(db, embedder, "sales") == []


def test_check_finds_a_vector_that_differs_from_its_text(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    db = semantic.home.scope_db("sales")
    ask("core.search", scope="sales", query="Kantine")
    embedder = embedder_for(semantic.config.search)
    other = embedder.passages(["Etwas ganz anderes"])[0].astype("<f4").tobytes()
    with db.write() as conn:
        last = conn.execute("SELECT max(seq) FROM rule").fetchone()[0]
        conn.execute(
            "UPDATE text_vector SET vector = ? WHERE kind = 'rule' AND seq = ?", (other, last)
        )
    assert vector_drift(db, embedder, "sales") == [
        f"the vector of rule seq {last} differs from its text's; "
        "run `groundnote rebuild vectors --scope sales`"
    ]


def test_another_process_sees_the_vectors_a_first_one_wrote(
    ask: Call, rules: list[str], semantic: Runtime, clock: FixedClock
) -> None:
    ask("core.search", scope="sales", query="Kantine")
    other = open_runtime(semantic.home.path, clock=clock, environ=ON)
    try:
        index = vector_index(
            other.home.scope_db("sales"), embedder_for(SearchConfig(semantic="on"))
        )
        assert len(index) == len(RULES) + 1
        assert index.catch_up() == 0
    finally:
        other.close()


def _vectors(runtime: Runtime) -> dict[tuple[str, int], np.ndarray]:
    with runtime.home.scope_db("sales").read() as conn:
        return {
            (r[0], r[1]): np.frombuffer(r[2], dtype="<f4")
            for r in conn.execute("SELECT kind, seq, vector FROM text_vector ORDER BY kind, seq")
        }


def test_check_finds_missing_vectors_and_rebuild_vectors_mends_them(
    ask: Call, rules: list[str], semantic: Runtime
) -> None:
    runner = CliRunner()
    home = ["--home", str(semantic.home.path)]
    env = ON  # the command line reads its configuration from the environment
    bad = runner.invoke(cli, [*home, "check"], env=env)
    assert bad.exit_code == 1
    assert f"{len(RULES)} rules lack a vector of" in bad.output
    assert "run `groundnote rebuild vectors --scope sales`" in bad.output
    mended = runner.invoke(cli, [*home, "rebuild", "vectors", "--scope", "sales"], env=env)
    assert mended.exit_code == 0, mended.output
    assert f"{len(RULES) + 1} rules and sources and 0 entity names embedded" in mended.output
    assert runner.invoke(cli, [*home, "check"], env=env).exit_code == 0


def test_an_import_of_mails_embeds_them_in_batches(semantic: Runtime, tmp_path: Path) -> None:
    semantic.home.create_scope("mails", approval_mode="auto")
    box = tmp_path / "box.mbox"
    box.write_text(
        "".join(
            f"From a@example.org Mon Oct  5 08:00:00 2026\nFrom: a@example.org\n"
            f"To: b@example.org\nSubject: Lieferung {n}\nMessage-ID: <l{n}@example.org>\n"
            f"Date: Mon, 05 Oct 2026 08:00:00 +0000\n\nDie Lieferung {n} kommt am Montag.\n\n"
            for n in range(70)
        )
    )
    _, token = make_principal(semantic, "importer", {"mails": Right.PROPOSE}, ["cli"])
    result = CliRunner().invoke(
        cli,
        ["--home", str(semantic.home.path), "import", "mail", "--scope", "mails", str(box)],
        env={**ON, "GROUNDNOTE_TOKEN": token},
    )
    assert result.exit_code == 0, result.output
    assert "stored 70" in result.output and "embedded 70 texts" in result.output
    with semantic.home.scope_db("mails").read() as conn:
        assert conn.execute("SELECT count(*) FROM text_vector").fetchone()[0] == 70


def test_a_scope_far_behind_is_caught_up_a_bounded_step_a_search(
    rules: list[str], semantic: Runtime
) -> None:
    index = vector_index(semantic.home.scope_db("sales"), embedder_for(semantic.config.search))
    assert [index.catch_up(limit=4) for _ in range(3)] == [4 + 1, len(RULES) - 4, 0]
    assert len(index) == len(RULES) + 1
