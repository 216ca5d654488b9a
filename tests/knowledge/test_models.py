"""Seed 004's own examples, run against the models; the declaration as the seed exposes it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from groundnote.knowledge.capabilities import RECORD
from groundnote.knowledge.models import (
    KnowledgeRecord,
    KnowledgeRecordInput,
    ResolvedReference,
    ResolvedRelation,
)
from groundnote.runtime import build_registry


def test_seed_input_example() -> None:
    value = KnowledgeRecordInput.model_validate_json('{"id":"e1-0123456789ab"}')
    assert value.id == "e1-0123456789ab"
    with pytest.raises(ValidationError):  # a key the input does not declare is refused
        KnowledgeRecordInput.model_validate_json('{"id":"x","uri":"y"}')


def test_seed_output_example() -> None:
    record = KnowledgeRecord.model_validate_json(
        """{
      "id": "e1-0123456789ab", "uri": "majordomus://knowledge/e1-0123456789ab",
      "path": ".ai/repo/knowledge/candidates/e1-0123456789ab.md", "source_class": "candidates",
      "class": "convention", "status": "candidate", "epistemics": "decided", "origin": "extracted",
      "date": "2026-09-12", "title": "An assertion", "resolved": true, "content": "---\\n---\\n"
    }"""
    )
    assert record.derived_from == [], "a record that names nothing has nothing to resolve"
    assert record.superseded_by is None, "and is not superseded"
    assert record.model_dump(mode="json")["class"] == "convention"


def test_seed_reference_and_relation_examples() -> None:
    ref = ResolvedReference.model_validate_json(
        '{"reference":"task:none","resolution":"missing","reason":"`none` is not a task"}'
    )
    assert (ref.resolution, ref.target) == ("missing", None)
    rel = ResolvedRelation.model_validate_json(
        '{"relation_type":"relates_to","reference":"file:docs/CLI.md",'
        '"resolution":"object","target":"docs/CLI.md"}'
    )
    assert rel.relation_type == "relates_to" and rel.resolution != "missing"
    with pytest.raises(ValidationError):  # four words and no fifth
        ResolvedReference.model_validate({"reference": "x:y", "resolution": "weak"})


def test_output_schema_matches_the_seed() -> None:
    schema = KnowledgeRecord.model_json_schema(mode="serialization")
    assert set(schema["required"]) == {
        "id",
        "uri",
        "path",
        "source_class",
        "class",
        "status",
        "epistemics",
        "date",
        "title",
        "content",
    }
    props = schema["properties"]
    assert props["resolved"]["default"] is False
    assert props["uri"]["description"] == "`majordomus://knowledge/<id>`."
    resolution = schema["$defs"]["ResolvedReference"]["properties"]["resolution"]
    assert [o["const"] for o in resolution["oneOf"]] == [
        "object",
        "external",
        "historical",
        "missing",
    ]
    assert schema["$defs"]["ResolvedReference"]["properties"]["reason"]["type"] == "string"
    inp = KnowledgeRecordInput.model_json_schema()
    assert inp["additionalProperties"] is False and inp["required"] == ["id"]


def test_exposure_and_policies_as_the_seed_declares() -> None:
    cap = build_registry().get("knowledge_base.record")
    assert cap is RECORD
    assert cap.mcp is not None and cap.mcp.tool == "majordomus_knowledge_record"
    assert cap.http is not None and (cap.http.method, cap.http.path) == (
        "GET",
        "/api/v1/knowledge/record",
    )
    assert cap.cli is not None and cap.cli.path == ("knowledge", "record")
    assert (cap.policies.benchmark, cap.policies.cache) == ("required", "disabled")
    assert cap.kind == "query" and cap.annotations.read_only
