"""The `knowledge` section of groundnote.json: strict, and only paths inside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundnote.config import ConfigError, load_config


def _load(tmp_path: Path, section: dict[str, object]) -> object:
    (tmp_path / "groundnote.json").write_text(json.dumps({"knowledge": section}))
    return load_config(tmp_path, environ={}).knowledge


def test_defaults_and_overrides(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={"GROUNDNOTE_KNOWLEDGE__ROOT": "kb"}).knowledge
    assert (cfg.root, cfg.ledger) == ("kb", ".ai/repo/ledger")


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"roots": "x"}, "key 'knowledge.roots' is not allowed"),
        ({"root": "/etc"}, "must be a path inside the checkout"),
        ({"ledger": "../elsewhere.jsonl"}, "must be a path inside the checkout"),
    ],
)
def test_bad_values_stop_start_up_with_the_key(
    tmp_path: Path, section: dict[str, object], words: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, section)
    assert words in str(exc.value)
