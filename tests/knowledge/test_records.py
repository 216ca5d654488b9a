"""Record files: every field of seed 004 parsed; every malformed file reported with its line."""

from __future__ import annotations

from groundnote.knowledge.records import Problem, Record, Relation, parse_record
from tests.knowledge.conftest import record_text

PATH = ".ai/repo/knowledge/candidates/e1-0123456789ab.md"


def problems(text: str) -> list[Problem]:
    result = parse_record(PATH, text, "candidates")
    assert isinstance(result, list), result
    return result


def test_a_full_record_parses_every_field() -> None:
    text = record_text(
        "e1-0123456789ab",
        provenance={"origin": "extracted", "derived_from": ["file:README.md", "task:T-1"]},
        relations=[{"type": "supports", "target": "knowledge:e2"}],
    )
    record = parse_record(PATH, text, "candidates")
    assert record == Record(
        id="e1-0123456789ab",
        path=PATH,
        source_class="candidates",
        klass="convention",
        status="candidate",
        epistemics="decided",
        origin="extracted",
        date="2026-09-12",
        title="Assertion e1-0123456789ab",
        superseded_by=None,
        derived_from=("file:README.md", "task:T-1"),
        relations=(Relation("supports", "knowledge:e2"),),
    )


def test_no_provenance_gives_an_empty_origin() -> None:
    record = parse_record(PATH, record_text("e1-0123456789ab"), "candidates")
    assert isinstance(record, Record)
    assert (record.origin, record.derived_from) == ("", ())


def test_a_file_without_front_matter_is_reported_at_line_1() -> None:
    [problem] = problems("# Just a heading\n")
    assert (problem.path, problem.line) == (PATH, 1)
    assert "front matter" in problem.message


def test_broken_yaml_is_reported_at_its_line() -> None:
    text = "---\nid: e1-0123456789ab\nclass: fact\ntitle: [unclosed\nstatus: candidate\n---\n"
    [problem] = problems(text)
    assert problem.line in (4, 5, 6)
    assert "not valid YAML" in problem.message


def test_an_unknown_enum_value_points_at_its_key() -> None:
    text = record_text("e1-0123456789ab", epistemics="guessed")
    [problem] = problems(text)
    assert problem.line == 5  # ---, id, class, status, epistemics
    assert problem.message.startswith("epistemics:")


def test_an_unknown_key_is_refused_never_ignored() -> None:
    [problem] = problems(record_text("e1-0123456789ab", epistemic="decided"))
    assert problem.message == "epistemic: unknown key, not allowed"
    assert problem.line == 8


def test_a_missing_field_points_at_the_front_matter() -> None:
    text = record_text("e1-0123456789ab").replace("title: Assertion e1-0123456789ab\n", "")
    [problem] = problems(text)
    assert (problem.line, problem.message) == (1, "title: Field required")


def test_an_impossible_date_is_a_problem_not_a_crash() -> None:
    found = problems(record_text("e1-0123456789ab").replace("2026-09-12", "2026-13-45"))
    assert found and found[0].path == PATH


def test_an_instant_is_not_a_day() -> None:
    text = record_text("e1-0123456789ab").replace("2026-09-12", "2026-09-12T10:00:00")
    [problem] = problems(text)
    assert "YYYY-MM-DD" in problem.message and problem.line == 6


def test_the_id_must_be_the_file_name() -> None:
    [problem] = problems(record_text("e9-other"))
    assert problem.line == 2 and "differs from the file name" in problem.message


def test_superseded_needs_superseded_by_and_the_reverse() -> None:
    [problem] = problems(record_text("e1-0123456789ab", status="superseded"))
    assert "superseded_by" in problem.message and problem.line == 4
    [problem] = problems(record_text("e1-0123456789ab", superseded_by="e2"))
    assert problem.line == 8


def test_a_front_matter_that_is_not_a_mapping() -> None:
    [problem] = problems("---\n- a\n- b\n---\n")
    assert problem.line == 1 and "mapping" in problem.message
