"""groundnote.json is validated strictly; the message names the file, the key and what is allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundnote.config import ConfigError, load_config


def test_defaults_of_the_seeds(tmp_path: Path) -> None:
    config = load_config(tmp_path, environ={})
    assert config.zone == "Europe/Berlin"
    assert config.graph.max_depth == 16
    assert config.graph.proposed_min_confidence is None
    assert "organisation" in config.graph.entity_types


def test_an_unknown_key_names_the_file_the_key_and_the_allowed_keys(tmp_path: Path) -> None:
    (tmp_path / "groundnote.json").write_text(json.dumps({"graph": {"max_dept": 3}}))
    with pytest.raises(ConfigError) as exc:
        load_config(tmp_path, environ={})
    text = str(exc.value)
    assert str(tmp_path / "groundnote.json") in text
    assert "graph.max_dept" in text
    assert "max_depth" in text and "entity_types" in text


def test_a_wrong_type_is_refused(tmp_path: Path) -> None:
    (tmp_path / "groundnote.json").write_text(json.dumps({"graph": {"max_depth": "deep"}}))
    with pytest.raises(ConfigError, match=r"graph\.max_depth"):
        load_config(tmp_path, environ={})


def test_an_unknown_zone_is_refused(tmp_path: Path) -> None:
    (tmp_path / "groundnote.json").write_text(json.dumps({"zone": "Mars/Olympus"}))
    with pytest.raises(ConfigError, match="zone"):
        load_config(tmp_path, environ={})


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    (tmp_path / "groundnote.json").write_text(json.dumps({"graph": {"max_depth": 8}}))
    config = load_config(
        tmp_path, environ={"GROUNDNOTE_GRAPH__MAX_DEPTH": "5", "GROUNDNOTE_HOME": "x"}
    )
    assert config.graph.max_depth == 5
    with pytest.raises(ConfigError, match="environment"):
        load_config(tmp_path, environ={"GROUNDNOTE_GRAPH__MAX_DEPTH": "1"})


def test_broken_json_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "groundnote.json").write_text('{\n "zone": \n}')
    with pytest.raises(ConfigError, match="line 3"):
        load_config(tmp_path, environ={})
