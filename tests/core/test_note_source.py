"""A note source (`note:<id>`, DESIGN §15 P7): stored, cited, linked, exported like any source."""

from __future__ import annotations

import json

from tests.conftest import Call


def test_a_note_is_stored_linked_and_found(call: Call) -> None:
    note = {
        "kind": "note",
        "id": "note:obs-1",
        "title": "Müller GmbH",
        "date": "2026-11-02",
        "author": "Ines Kraft",
        "text": "Zahlt Rechnungen immer am Monatsende.",
    }
    out = call("core.store_source", scope="sales", source=note)
    assert (out["kind"], out["sender"], out["stored"]) == ("note", "Ines Kraft", True)
    entity = call("graph.entity_create", scope="sales", type="organisation", name="Müller GmbH")[
        "entity"
    ]
    link = call(
        "graph.link_propose",
        scope="sales",
        from_ref="source/note:obs-1",
        to_ref=f"entity/{entity['id']}",
        type="concerns",
        confidence=1.0,
        reason="imported from memory.jsonl",
    )
    assert link["link"]["from_ref"] == "source/note:obs-1"
    listed = call("graph.link_list", scope="sales", ref=f"entity/{entity['id']}")
    assert '"source/note:obs-1"' in json.dumps(listed), listed
    assert call("core.store_source", scope="sales", source=note)["stored"] is False
