"""The recipe and the sources parse into models; a bad file is named with its key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundnote.context.blocks import content_key, glob_regex, split_blocks
from groundnote.context.locales import canonical, is_canonical
from groundnote.context.recipe import load_recipe
from groundnote.context.sources import load_state, load_terms
from groundnote.domain.errors import ValidationFailed
from tests.context.project import write, write_project


def test_recipe_parses_with_windows_as_instants(tmp_path: Path) -> None:
    recipe = load_recipe(write_project(tmp_path))
    assert recipe.project == "docs-site"
    formal = recipe.collections[0].governance[0]
    assert formal.window.valid_from == "2026-01-01T00:00:00.000Z"
    assert formal.window.contains("2026-06-01T00:00:00.000Z")
    assert not formal.window.contains("2027-01-01T00:00:00.000Z")  # [from, to)


def test_missing_recipe_says_what_to_create(tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed) as exc:
        load_recipe(tmp_path)
    assert "groundnote-context.yaml" in exc.value.message
    assert exc.value.body()["file"].endswith("groundnote-context.yaml")


def test_bad_recipe_key_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        "groundnote-context.yaml",
        "project: docs\ncollections:\n  - label: a\n    files: []\n",
    )
    with pytest.raises(ValidationFailed) as exc:
        load_recipe(tmp_path)
    body = exc.value.body()
    assert body["key"] == "collections.0.files"
    assert "groundnote-context.yaml, key collections.0.files" in body["message"]


def test_unknown_recipe_key_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "groundnote-context.yaml", "project: docs\nprojekt: typo\n")
    with pytest.raises(ValidationFailed) as exc:
        load_recipe(tmp_path)
    assert exc.value.body()["key"] == "projekt"


def test_governance_window_must_be_ordered(tmp_path: Path) -> None:
    write(
        tmp_path,
        "groundnote-context.yaml",
        "project: docs\ncollections:\n  - label: a\n    files: ['*.md']\n    governance:\n"
        "      - {profile: p, channel: c, from: 2027-01-01, to: 2026-01-01}\n",
    )
    with pytest.raises(ValidationFailed) as exc:
        load_recipe(tmp_path)
    assert exc.value.body()["key"] == "collections.0.governance.0"


def test_terms_status_and_locale_are_checked(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "terms.json",
        json.dumps(
            {"concepts": [{"id": "c", "terms": [{"text": "x", "locale": "en", "status": "liked"}]}]}
        ),
    )
    with pytest.raises(ValidationFailed) as exc:
        load_terms(file)
    assert exc.value.body()["key"] == "concepts.0.terms.0.status"
    file.write_text(
        json.dumps(
            {
                "concepts": [
                    {
                        "id": "c",
                        "terms": [{"text": "x", "locale": "not a tag", "status": "preferred"}],
                    }
                ]
            }
        )
    )
    with pytest.raises(ValidationFailed) as exc:
        load_terms(file)
    assert exc.value.body()["key"] == "concepts.0.terms.0.locale"


def test_terms_locales_are_canonical(tmp_path: Path) -> None:
    terms = load_terms(write_project(tmp_path) / "terms.json")
    assert {t.locale for c in terms.concepts for t in c.terms} == {"en", "de-DE"}


def test_bad_state_line_is_named_by_number(tmp_path: Path) -> None:
    write_project(tmp_path)
    write(tmp_path, "state/other.jsonl", '{"document": "x"}\n\nnot json\n')
    with pytest.raises(ValidationFailed) as exc:
        load_state(tmp_path)
    assert exc.value.body()["key"].startswith("line 1")


def test_locale_spellings_normalise_to_one_key() -> None:
    assert canonical("nb_NO") == canonical("nb-no") == canonical("nb-NO") == "nb-NO"
    assert canonical("") == ""
    assert is_canonical("de-DE") and not is_canonical("de_DE") and not is_canonical("no such")
    with pytest.raises(ValueError, match="BCP-47"):
        canonical("no such")


def test_blocks_split_and_key_by_normalised_text() -> None:
    body = "# Title {#top}\nPara one\ncontinues.\n\n```\ncode\n\nstill code\n```\nLast."
    blocks = split_blocks(body)
    assert blocks[0] == ("top", "# Title")
    assert blocks[1] == (None, "Para one\ncontinues.")
    assert "still code" in blocks[2][1]
    assert blocks[3] == (None, "Last.")
    assert content_key("Para  one\ncontinues.") == content_key("Para one continues.")


def test_globs_span_directories_only_with_double_star() -> None:
    assert glob_regex("guides/**/*.md").match("guides/a.md")
    assert glob_regex("guides/**/*.md").match("guides/x/y/a.md")
    assert not glob_regex("blog/*.md").match("blog/x/a.md")
