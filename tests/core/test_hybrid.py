"""The fusion of full text and embeddings: who votes, and what a fused ranking holds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groundnote.core.fts import query_terms
from groundnote.core.hybrid import fuse, shared_terms, votes

IDS = st.lists(st.sampled_from([f"r{n}" for n in range(12)]), unique=True, max_size=8)


@given(IDS, IDS, IDS)
def test_a_fused_ranking_holds_each_voter_and_semantic_hit_once(
    text: list[str], voting: list[str], semantic: list[str]
) -> None:
    fused = fuse(text, set(voting), semantic)
    voters = {r for r in text if r in voting}
    assert [f.rule_id for f in fused] == list(dict.fromkeys(f.rule_id for f in fused))
    assert {f.rule_id for f in fused} == voters | set(semantic)
    for f in fused:
        expected = {True: {True: "both", False: "text"}, False: {True: "semantic", False: ""}}
        assert f.match == expected[f.rule_id in voters][f.rule_id in semantic]
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)


def test_found_by_both_sides_ranks_above_either_alone() -> None:
    fused = fuse(["a", "b"], {"a", "b"}, ["c", "b"])
    assert fused[0].rule_id == "b"


def test_a_hit_sharing_one_common_word_does_not_vote() -> None:
    terms = query_terms("Wann muss ein Großkunde zahlen?")
    assert not votes(terms, shared_terms(terms, "Kunden zahlen bar an der Kasse."))
    assert votes(terms, shared_terms(terms, "Jeder Großkunde muss binnen 30 Tagen zahlen."))


def test_a_short_query_votes_with_every_word_it_has() -> None:
    terms = query_terms("Kantine")
    assert votes(terms, shared_terms(terms, "Die Kantine öffnet um 11:30 Uhr."))
    assert not votes(terms, shared_terms(terms, "Die Küche öffnet um 11:30 Uhr."))
