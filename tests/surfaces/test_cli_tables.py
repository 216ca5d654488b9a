"""The command line's tables at 80 columns: every capability's answer, and real ones.

Every capability's output model is filled from its JSON schema with values of realistic size
(ids, refs, long statements, nested objects, lists of three) and printed as a table on an
80-column console: no line is wider, no cell holds raw JSON, and every id of a listed row
stands whole. `--output json` stays the complete answer.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from click.testing import CliRunner
from rich.cells import cell_len
from rich.console import Console

from groundnote.runtime import Runtime, build_registry
from groundnote.surfaces.cli.main import cli
from groundnote.surfaces.cli.output import print_result
from tests.conftest import Call
from tests.core.conftest import mail, propose

CAPABILITIES = [c for c in build_registry() if c.cli is not None]
WIDTH = 80

_BY_NAME: dict[str, Any] = {
    "id": "sales-e0042",
    "ref": "entity/sales-e0042",
    "scope": "sales",
    "name": "Bäckerei Sommer",
    "statement": "Customers in the north get three per cent off spare parts, but not on "
    "maintenance visits, from the first of November on.",
    "title": "Discount for Bäckerei Sommer and the other customers of Vertrieb Nord",
    "line": "sales-0001 (adopted, from 2026-11-01): Customers in the north get three per "
    "cent off spare parts — 2 sources; 1 entity",
    "why": "see what lies below sales-e0042 before you create anything there",
}


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def example(schema: dict[str, Any], defs: dict[str, Any], name: str = "", depth: int = 0) -> Any:
    """A value of realistic size for a JSON schema (not necessarily valid against it)."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if _resolve(s, defs).get("type") != "null"]
        return example(options[0], defs, name, depth) if options else None
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "string":
        return _BY_NAME.get(name, f"{name or 'text'} value of some length")
    if kind == "integer":
        return 3
    if kind == "number":
        return 0.75
    if kind == "boolean":
        return True
    if kind == "array":
        if depth > 3:
            return []
        return [example(schema.get("items", {}), defs, name, depth + 1) for _ in range(3)]
    if kind == "object" or "properties" in schema:
        if depth > 4:
            return {}
        if "properties" in schema:
            return {
                key: example(sub, defs, key, depth + 1) for key, sub in schema["properties"].items()
            }
        values = schema.get("additionalProperties", {"type": "integer"})
        values = values if isinstance(values, dict) else {"type": "integer"}
        return {f"{name}_{i}": example(values, defs, name, depth + 1) for i in range(3)}
    return f"{name} value"


def render(data: dict[str, Any]) -> str:
    out = io.StringIO()
    print_result(data, "table", Console(file=out, width=WIDTH, force_terminal=False))
    return out.getvalue()


def _ids(data: dict[str, Any]) -> list[str]:
    return [
        row["id"]
        for value in data.values()
        if isinstance(value, list)
        for row in value
        if isinstance(row, dict) and isinstance(row.get("id"), str)
    ]


@pytest.mark.parametrize("cap", CAPABILITIES, ids=lambda c: c.name)
def test_every_answer_reads_at_80_columns(cap: Any) -> None:
    schema = cap.output.model_json_schema(mode="serialization")
    data = example(schema, schema.get("$defs", {}))
    text = render(data)
    assert text.strip(), "the table shows nothing"
    wide = [line for line in text.splitlines() if cell_len(line) > WIDTH]
    assert wide == []
    assert '{"' not in text and "[{" not in text, "a cell holds raw JSON"
    for value in _ids(data):
        assert value in text  # ids stand whole, never `sales-e…`
    flowing = " ".join(text.split())
    for key, value in data.items():
        if isinstance(value, str | int) and not isinstance(value, bool):
            assert f"{key}: {value}" in flowing  # the scalars of the answer, as lines


@pytest.fixture
def filled(runtime: Runtime, call: Call, scope: str) -> None:
    call("core.store_source", scope=scope, source=mail(1))
    for n in range(3):
        propose(
            call,
            f"Kunden im Gebiet Nord erhalten {n + 2} Prozent Rabatt auf Ersatzteile.",
            ["source/mail:<m1@example.org>"],
        )
    for name in ("Nordlicht Handelsgesellschaft mbH", "Vertrieb Nord und Ostsee"):
        call(
            "graph.entity_create",
            scope=scope,
            type="organisation",
            name=name,
            reason="the mail names it",
        )


@pytest.mark.usefixtures("filled")
@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["rules", "list", "--scope", "sales"], ["sales-0001", "sales-0003", "Prozent Rabatt"]),
        (["status", "--scope", "sales"], ["sales", "person"]),
        (["entity", "tree", "--scope", "sales"], ["sales-e0001", "sales-e0002"]),
        (
            ["entity", "resolve", "--scope", "sales", "--q", "Vertrieb Nord + Ostsee"],
            ["sales-e0002"],
        ),
        (["entity", "resolve", "--scope", "sales", "--q", "Kantine"], ["candidates: none"]),
        (["search", "--scope", "sales", "--query", "Rabatt", "--include-proposed"], ["sales-0001"]),
        (["scopes"], ["sales", "propose"]),
    ],
)
def test_real_answers_read_at_80_columns(
    home_path: Any, agent_token: str, args: list[str], shown: list[str]
) -> None:
    runner = CliRunner()
    base = ["--home", str(home_path), "--token", agent_token]
    result = runner.invoke(cli, [*base, *args], env={"COLUMNS": str(WIDTH)}, terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(cell_len(line) <= WIDTH for line in lines), result.stdout
    assert '{"' not in result.stdout
    for text in shown:
        assert text in result.stdout
    complete = runner.invoke(cli, [*base, *args, "--output", "json"])
    assert complete.exit_code == 0 and json.loads(complete.stdout)  # the complete answer
