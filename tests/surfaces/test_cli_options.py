"""Every option of every capability's CLI command takes what a person types: a plain string
for a string field, a repeated option for a list of strings, JSON only for objects."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from groundnote.runtime import build_registry
from groundnote.surfaces.cli.capability_commands import _collect, _kind
from groundnote.surfaces.cli.main import cli

CAPABILITIES = [c for c in build_registry() if c.cli is not None]


def _types(schema: dict[str, Any]) -> set[str]:
    if "anyOf" in schema:
        return set().union(*(_types(s) for s in schema["anyOf"]))
    if "enum" in schema or "const" in schema:
        return {"string"}
    found = schema.get("type")
    return set(found) if isinstance(found, list) else {found} if found else set()


def _string_fields() -> list[tuple[str, str, bool]]:
    """(capability, field, is a list) for every input field that takes strings."""
    found = []
    for cap in CAPABILITIES:
        properties = cap.input.model_json_schema()["properties"]
        for name in cap.input.model_fields:
            schema = properties[name]
            if "string" in _types(schema):
                found.append((cap.name, name, False))
            elif "array" in _types(schema) and "string" in _types(schema.get("items", {})):
                found.append((cap.name, name, True))
    return found


STRING_FIELDS = _string_fields()


def test_the_walk_covers_the_options_people_type() -> None:
    names = {(c, f) for c, f, _ in STRING_FIELDS}
    assert ("knowledge_base.record", "scope") in names  # SkipJsonSchema[None] in its union
    assert ("core.search", "query") in names and ("graph.link_propose", "from_ref") in names
    assert len(STRING_FIELDS) > 60


@pytest.mark.parametrize(("capability", "field", "many"), STRING_FIELDS)
def test_a_plain_string_is_taken_as_typed(capability: str, field: str, many: bool) -> None:
    cap = build_registry().get(capability)
    value: Any = ("first value", "second") if many else "a plain value"
    assert _kind(cap.input.model_fields[field].annotation) == ("list" if many else "scalar")
    assert _collect(cap, {field: value}) == {field: list(value) if many else value}


def test_knowledge_record_takes_its_scope_as_a_plain_string(tmp_path: Any) -> None:
    home = str(tmp_path / "home")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", home, "scope", "create", "kb"]).exit_code == 0
    result = runner.invoke(
        cli, ["--home", home, "knowledge", "record", "k-0001", "--scope", "kb", "--output", "json"]
    )
    assert "not valid JSON" not in result.output
    # it passes validation and reaches the handler, which looks for the record
    assert '"error": "not-found"' in result.stderr, result.output
    assert "k-0001" in result.stderr
