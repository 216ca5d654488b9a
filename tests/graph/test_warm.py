"""Servers build each scope's resolve index at start, not on the first resolve."""

from __future__ import annotations

from groundnote.graph.trigram import index_for
from groundnote.runtime import Runtime
from tests.conftest import Call


def test_warm_builds_the_resolve_index_the_first_resolve_uses(
    runtime: Runtime, scope: str, call: Call
) -> None:
    call("graph.entity_create", scope=scope, type="organisation", name="Müller & Söhne GmbH")
    index = index_for(runtime.home.scope_db(scope))
    index.reset()
    assert not index.built
    runtime.warm([scope])
    assert index.built
    found = call("graph.entity_resolve", scope=scope, q="Mueller Soehne")
    assert found["candidates"][0]["name"] == "Müller & Söhne GmbH"
