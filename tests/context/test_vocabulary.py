"""The id scheme and the two kinds of node (seed 002 "Node identity carries the scope tuple")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from groundnote.context.projectdb import ProjectDB
from groundnote.context.vocabulary import (
    EDGE_LABELS,
    NODE_LABELS,
    Scope,
    block_node,
    collection_node,
    concept_node,
    coordinate_node,
    node_id,
    unit_state_node,
)
from groundnote.domain.clock import FixedClock
from groundnote.store.sql import IntegrityError

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
LOCAL = Scope(project="docs")
HOSTED = Scope(workspace="acme", project="docs", stream="main")


def test_id_has_three_scope_fields_and_a_local_part() -> None:
    assert block_node(HOSTED, "abc", "a.md").id == "block:acme/docs/main:abc"
    assert block_node(LOCAL, "abc", "a.md").id == "block:/docs/:abc"


def test_separators_inside_components_are_escaped_so_tuples_never_collide() -> None:
    one = node_id("collection", Scope(project="a/b", stream="c"), "x")
    two = node_id("collection", Scope(project="a", stream="b/c"), "x")
    assert one != two
    assert node_id("collection", Scope(project="a:b"), "c") != node_id(
        "collection", Scope(project="a"), "b:c"
    )
    assert "%2F" in one


def test_vocabulary_nodes_drop_the_instance_dimensions() -> None:
    assert concept_node(HOSTED, "email").id == "concept:acme//:email"
    assert concept_node(HOSTED, "email") == concept_node(Scope("acme", "other", "x"), "email")
    coordinate = coordinate_node(HOSTED, "formal", "web")
    assert coordinate.props == {"profile": "formal", "channel": "web", "workspace": "acme"}


def test_instance_nodes_carry_their_dimensions_as_properties_absent_when_empty() -> None:
    hosted = collection_node(HOSTED, "guides")
    assert hosted.props["project"] == "docs" and hosted.props["stream"] == "main"
    local = collection_node(LOCAL, "guides")
    assert "workspace" not in local.props and "stream" not in local.props
    assert collection_node(LOCAL, "guides") != collection_node(Scope(project="other"), "guides")


def test_unit_state_identity_is_document_unit_and_variant() -> None:
    a = unit_state_node(LOCAL, "guide", "intro", "de-DE", "signed_off", False)
    b = unit_state_node(LOCAL, "other", "intro", "de-DE", "signed_off", False)
    assert a.id != b.id
    assert a.id == unit_state_node(LOCAL, "guide", "intro", "de-DE", "rejected", True).id


def test_scope_contains_treats_empty_as_any() -> None:
    assert Scope().contains(HOSTED)
    assert Scope(project="docs").contains(HOSTED)
    assert not Scope(project="other").contains(HOSTED)
    assert not HOSTED.contains(LOCAL)


def test_the_store_refuses_labels_outside_the_vocabulary(tmp_path: Path) -> None:
    store = ProjectDB.open(tmp_path, CLOCK)
    try:
        with store.db.write() as conn:
            for label in NODE_LABELS:
                scope = (None, None) if label in ("concept", "coordinate") else ("p", None)
                conn.execute(
                    "INSERT INTO graph_nodes VALUES (?, ?, NULL, ?, ?, 'x', '{}')",
                    (f"{label}:x", label, *scope),
                )
            for label in EDGE_LABELS:
                conn.execute(
                    "INSERT INTO graph_edges VALUES ('block:x', ?, 'concept:x', '', NULL, NULL, '{}')",
                    (label,),
                )
        with pytest.raises(IntegrityError), store.db.write() as conn:
            conn.execute(
                "INSERT INTO graph_nodes VALUES ('term:x', 'term', NULL, NULL, NULL, 'x', '{}')"
            )
        with pytest.raises(IntegrityError), store.db.write() as conn:
            # a vocabulary node never carries instance dimensions
            conn.execute(
                "INSERT INTO graph_nodes VALUES ('concept:y', 'concept', NULL, 'p', NULL, 'y', '{}')"
            )
        with pytest.raises(IntegrityError), store.db.write() as conn:
            conn.execute(
                "INSERT INTO graph_edges VALUES ('block:x', 'uses_term', 'concept:gone', '', NULL, NULL, '{}')"
            )
    finally:
        store.close()
