"""The shared query-shape fixture: two projects of one workspace sharing a concept.

One fixture, one table of expected answers (test_conformance.py), run against every store
that claims the vocabulary.
"""

from __future__ import annotations

from typing import Protocol

from groundnote.context.vocabulary import (
    Edge,
    Node,
    Scope,
    blesses,
    block_node,
    collection_node,
    concept_node,
    coordinate_node,
    governed_by,
    in_collection,
    unit_state_node,
    uses_term,
)
from groundnote.context.window import Window

__all__ = ["ALPHA", "BETA", "SHARED_KEY", "Writer", "alpha", "beta", "load_fixture"]

ALPHA = Scope("acme", "alpha", "main")
BETA = Scope("acme", "beta", "main")
SHARED_KEY = "k-shared"


class Writer(Protocol):
    def replace_scope(self, scope: Scope, nodes: list[Node], edges: list[Edge]) -> None: ...


def _window(start: str | None = None, end: str | None = None) -> Window:
    return Window(valid_from=start, valid_to=end)


def _email_uses(block: Node, concept: Node, document: str, counts: dict[str, int]) -> list[Edge]:
    entries = {
        "email": [("preferred", _window(), None)],
        "e-mail": [
            ("admitted", _window(end="2027-01-01T00:00:00.000Z"), None),
            ("deprecated", _window(start="2027-01-01T00:00:00.000Z"), "US"),
        ],
    }
    return [
        uses_term(
            block,
            concept,
            term=term,
            status=status,
            locale="en",
            document=document,
            count=count,
            window=window,
            market=market,
        )
        for term, count in counts.items()
        for status, window, market in entries[term]
    ]


def alpha() -> tuple[list[Node], list[Edge]]:
    email = concept_node(ALPHA, "email")
    formal = coordinate_node(ALPHA, "formal", "web")
    guides = collection_node(ALPHA, "guides")
    a1 = block_node(ALPHA, SHARED_KEY, "guides/start.md")
    a2 = block_node(ALPHA, "k-a2", "guides/start.md")
    edges = [
        governed_by(
            guides, formal, _window("2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
        ),
        in_collection(a1, guides),
        in_collection(a2, guides),
        *_email_uses(a1, email, "guides/start.md", {"email": 2, "e-mail": 1}),
        *_email_uses(a2, email, "guides/start.md", {"e-mail": 3}),
    ]
    return [email, formal, guides, a1, a2], edges


def beta() -> tuple[list[Node], list[Edge]]:
    email = concept_node(BETA, "email")
    formal = coordinate_node(BETA, "formal", "web")
    docs = collection_node(BETA, "docs")
    b1 = block_node(BETA, SHARED_KEY, "docs/intro.md")
    state = unit_state_node(BETA, "intro", "u1", "de-DE", "signed_off", False)
    gone = unit_state_node(BETA, "intro", "u9", "de-DE", "rejected", True)  # its block is gone
    edges = [
        governed_by(docs, formal, _window("2026-06-01T00:00:00.000Z")),
        in_collection(b1, docs),
        *_email_uses(b1, email, "docs/intro.md", {"email": 1}),
        blesses(state, b1.id, target_hash="t-9", source_basis=SHARED_KEY),
    ]
    return [email, formal, docs, b1, state, gone], edges


def load_fixture(store: Writer) -> None:
    store.replace_scope(ALPHA, *alpha())
    store.replace_scope(BETA, *beta())
