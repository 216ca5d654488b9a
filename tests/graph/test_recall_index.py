"""The recall index at the depth the benchmark relies on: exact Jaccard ranking, the int/set
maps, the row batches of resolve and the literal-duplicate check on its rarest trigrams."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable

import pytest
from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from groundnote.domain.errors import GroundnoteError
from groundnote.graph import entities, trigram
from groundnote.graph.entities import Author, create_entity
from groundnote.graph.fts import put_text, remove_text
from groundnote.graph.normalize import TITLES, initials, normalize, person_key, trigrams
from groundnote.graph.resolve import DUPLICATE_SCORE, MIN_SCORE, recall, score_text
from groundnote.graph.trigram import TrigramIndex, index_for
from groundnote.runtime import Runtime
from tests.conftest import Call
from tests.graph.helpers import archive

WORDS = ["vertrieb", "nord", "sued", "projekt", "polarstern", "mueller", "bau", "nordwerk"]


def reference(index_texts: dict[int, tuple[str, ...]], key: str, limit: int) -> list[int]:
    """Every entity sharing a trigram, by Jaccard of the trigram sets, ties by seq."""
    grams = trigrams(key)
    shared: Counter[int] = Counter()
    sizes = {}
    for seq, texts in index_texts.items():
        own = set().union(*(trigrams(t) for t in texts))
        sizes[seq] = len(own)
        if own & grams:
            shared[seq] = len(own & grams)
    return sorted(shared, key=lambda s: (-shared[s] / (len(grams) + sizes[s] - shared[s]), s))[
        :limit
    ]


@pytest.fixture
def filled(runtime: Runtime, scope: str) -> tuple[TrigramIndex, dict[int, tuple[str, ...]]]:
    """300 entity_fts rows from a small vocabulary: long posting lists and many equal scores."""
    rng = random.Random(5)
    texts: dict[int, tuple[str, ...]] = {}
    db = runtime.home.scope_db(scope)
    with db.write() as conn:
        for seq in range(1, 301):
            name = " ".join(rng.sample(WORDS, rng.randint(1, 3))) + f" {rng.randint(1, 40)}"
            aliases = [rng.choice(WORDS)[:3] + str(seq)] if seq % 4 == 0 else []
            put_text(conn, seq, name, aliases)
            texts[seq] = (normalize(name), *(normalize(a) for a in aliases))
    return index_for(db), texts


@pytest.mark.parametrize("key", ["vertrieb nord 7", "nord", "projekt", "mueller bau 12", "zzz"])
@pytest.mark.parametrize("limit", [1, 5, 50])
def test_similar_is_the_exact_jaccard_top(
    filled: tuple[TrigramIndex, dict[int, tuple[str, ...]]], key: str, limit: int
) -> None:
    index, texts = filled
    assert index.similar(key, limit) == reference(texts, key, limit)


def test_similar_matches_the_reference_on_random_keys(
    filled: tuple[TrigramIndex, dict[int, tuple[str, ...]]],
) -> None:
    # Small vocabularies make many equal Jaccard scores, also at the limit-th place, where
    # the shortlist by shared count must widen to let an entity sharing fewer tie in.
    index, texts = filled
    rng = random.Random(11)
    for _ in range(150):
        words = rng.sample(WORDS, rng.randint(1, 3))
        key = normalize(" ".join(words) + rng.choice(["", f" {rng.randint(1, 40)}"]))
        for limit in (1, 3, 10, 50):
            assert index.similar(key, limit) == reference(texts, key, limit), (key, limit)


@pytest.fixture
def churned(runtime: Runtime, scope: str) -> tuple[TrigramIndex, dict[int, tuple[str, ...]]]:
    """1,500 rows from a tiny alphabet, then 300 rewritten after the index was built: long
    posting lists that no longer ascend, equal scores at every cut, shared counts of one."""
    rng = random.Random(23)
    db = runtime.home.scope_db(scope)
    index = index_for(db)
    texts: dict[int, tuple[str, ...]] = {}

    def text() -> str:
        words = ["".join(rng.choice("abcde") for _ in range(rng.randint(2, 6))) for _ in "ab"]
        return " ".join(words[: rng.randint(1, 2)])

    def write(seqs: list[int]) -> None:
        with db.write() as conn:
            for seq in seqs:
                name, aliases = text(), [text() for _ in range(rng.randint(0, 2))]
                put_text(conn, seq, name, aliases)
                texts[seq] = (normalize(name), *(normalize(a) for a in aliases))

    write(list(range(1, 1501)))
    assert len(index) == 1500  # built now: the rewrites below are taken in with their commit
    write(rng.sample(range(1, 1501), 300))
    return index, texts


def test_similar_matches_the_reference_after_churn(
    churned: tuple[TrigramIndex, dict[int, tuple[str, ...]]],
) -> None:
    index, texts = churned
    rng = random.Random(29)
    for _ in range(60):
        key = normalize(
            " ".join(
                "".join(rng.choice("abcdef") for _ in range(rng.randint(1, 7)))
                for _ in range(rng.randint(1, 3))
            )
        )
        for limit in (1, 7, 50, 2000):
            assert index.similar(key, limit) == reference(texts, key, limit), (key, limit)


def test_byte_maps_count_as_the_lists_through_writes_and_growth(
    runtime: Runtime, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real indexes make byte maps from 4,096 holders on; here every trigram held by one
    # entity in eight gets one, and the maps must follow rewrites, removals and new seqs
    # past the arrays' room exactly as the posting lists do.
    monkeypatch.setattr(trigram, "_DENSE_MIN", 1)
    rng = random.Random(31)
    db = runtime.home.scope_db(scope)
    index = index_for(db)
    texts: dict[int, tuple[str, ...]] = {}

    def write(seqs: list[int]) -> None:
        with db.write() as conn:
            for seq in seqs:
                name = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
                put_text(conn, seq, name, [])
                texts[seq] = (normalize(name),)

    def agrees() -> None:
        for words in itertools.islice(itertools.permutations(WORDS, 2), 0, None, 7):
            key = normalize(" ".join(words))
            for limit in (1, 5, 50):
                assert index.similar(key, limit) == reference(texts, key, limit), (key, limit)

    write(list(range(1, 401)))
    agrees()
    assert index._dense  # the common trigrams are counted from maps now
    write(rng.sample(range(1, 401), 150) + list(range(401, 2600)))  # rewrites, then growth
    with db.write() as conn:
        for seq in rng.sample(range(1, 2600), 300):
            remove_text(conn, seq)
            texts.pop(seq, None)
    agrees()


def untitled(text: str) -> str:
    words = text.split()
    if len(words) > 1 and words[-1] in ("gbmbh", "gmbx"):  # one edit from gmbh; gmb is short
        words.pop()
    while len(words) > 1 and words[0] in TITLES:
        words.pop(0)
    return " ".join(words)


def one_word(a: str, b: str) -> bool:
    if any(c.isdigit() for c in a + b) or min(len(a), len(b)) < 3 or max(len(a), len(b)) < 4:
        return False
    limit = 2 if max(len(a), len(b)) >= 7 else 1

    def back(word: str) -> str:  # an umlaut spelt out counts as one letter
        for spelt, letter in (("ae", "ä"), ("oe", "ö"), ("ue", "ü"), ("ss", "ß")):
            word = word.replace(spelt, letter)
        return word

    return OSA.distance(a, b) <= limit or OSA.distance(back(a), back(b)) <= limit


def another_thing(key: str, text: str) -> bool:
    """Numbers differ, or the words cannot be paired one to one, equal or misspelt."""
    if key.replace(" ", "") == text.replace(" ", ""):
        return False
    a, b = Counter(key.split()), Counter(text.split())
    if sorted(t for t in (a - b).elements() if t.isdigit()) or any(
        any(c.isdigit() for c in t) for t in ((a - b) + (b - a)).elements()
    ):
        return True
    left_a, left_b = list((a - b).elements()), list((b - a).elements())
    if len(left_a) != len(left_b) or len(left_a) > 3:
        return True
    return not any(
        all(one_word(x, y) for x, y in zip(left_a, order, strict=True))
        for order in itertools.permutations(left_b)
    )


def reference_score(key: str, text: str, *, is_name: bool) -> tuple[float, str]:
    """The scoring of graph/scoring.py written out once more, every branch for every text,
    unweighted (each token weighs 1)."""
    key, text = untitled(key), untitled(text)
    if text == key:
        return (1.0, "exact") if is_name else (0.95, "alias")
    if len(key.split()) > 1 and sorted(key.split()) == sorted(text.split()):
        return 0.90, "tokens"
    ratio = fuzz.ratio(key, text) / 100
    distance = OSA.distance(key, text)
    if distance <= 2:
        typo = max(1 - distance / max(len(key), len(text)), ratio)
        score, kind = (0.90 + (typo - 0.90) * 0.4 if typo > 0.90 else typo), "typo"
    elif " " not in key and 2 <= len(key) <= 6 and key.isalpha() and initials(text) == key:
        return 0.80, "initials"
    else:
        words = text.split()
        shared = sum(
            2.0 if w in words else 2 * max(fuzz.ratio(w, t) for t in words) / 100
            for w in key.split()
        )
        overlap = min(1.0, shared / (len(key.split()) + len(words)))
        score, kind = min(ratio, (ratio + overlap) / 2, 0.89), "similar"
    if another_thing(key, text) and score > 0.5:
        score = 0.5 + (score - 0.5) * 0.34 / 0.5
    words, mine = text.split(), key.split()
    singles = [w for w in mine if len(w) == 1 and w.isalpha()]
    surname = [w for w in mine if len(w) > 1]
    if (
        singles
        and surname
        and all(w.isalpha() for w in surname)
        and (mine == singles + surname or mine == surname + singles)
        and len(words) > len(surname)
        and words[-len(surname) :] == surname
        and "".join(w[0] for w in words[: -len(surname)]).startswith("".join(singles))
        and score < 0.80
    ):
        return 0.80, "initials"
    return score, kind


def test_score_text_matches_the_reference() -> None:
    rng = random.Random(31)
    words = ["ab", "abc", "nord", "nrod", "vertrieb", "vn", "bau", "mueller", "muller"]
    words += ["2027", "2021", "m", "v", "dr", "prof", "nordwest", "franke", "maximilian"]
    words += ["fuerth", "fbrth", "weiss", "weie", "gbmbh", "gmb", "gmbx"]
    for _ in range(4000):
        key = " ".join(rng.sample(words, rng.randint(1, 3)))
        text = " ".join(rng.sample(words, rng.randint(1, 4)))
        for is_name in (True, False):
            got = score_text(key, text, is_name=is_name)
            want = reference_score(key, text, is_name=is_name)
            assert got[1] == want[1] and got[0] == pytest.approx(want[0], abs=1e-12), (key, text)


def test_recall_is_the_reference_recall(
    churned: tuple[TrigramIndex, dict[int, tuple[str, ...]]],
) -> None:
    """The three passes of §5.2 end to end: exact + the 50 best by Jaccard + initials."""
    index, texts = churned
    rng = random.Random(37)
    for _ in range(80):
        words = ["".join(rng.choice("abcde") for _ in range(rng.randint(1, 6))) for _ in "ab"]
        key = normalize(" ".join(words[: rng.randint(1, 2)]))
        want = {s for s, t in texts.items() if key in t}
        if len(key) >= 3:
            want |= set(reference(texts, key, 50))
        words = key.split()
        singles = [w for w in words if len(w) == 1]
        if " " not in key and 2 <= len(key) <= 6 and key.isalpha():
            held = sorted(s for s, t in texts.items() if any(initials(x) == key for x in t))
            want |= set(held[:100])
        elif (
            singles
            and len(singles) < len(words)
            and (words[: len(singles)] == singles or words[-len(singles) :] == singles)
        ):  # initials and a surname: the first initial and the last word
            surname = [w for w in words if len(w) > 1]
            lookup = f"{singles[0]} {surname[-1]}"
            held = sorted(s for s, t in texts.items() if any(person_key(x) == lookup for x in t))
            want |= set(held[:100])
        assert recall(index, key) == want, key


def test_similar_follows_a_write_of_this_process(
    runtime: Runtime, scope: str, filled: tuple[TrigramIndex, dict[int, tuple[str, ...]]]
) -> None:
    index, texts = filled
    assert index.similar("nord", 50)  # built
    db = runtime.home.scope_db(scope)
    with db.write() as conn:
        put_text(conn, 7, "Nord", [])
        put_text(conn, 301, "Nordnord", ["NN"])
    texts[7], texts[301] = ("nord",), ("nordnord", "nn")
    assert index.similar("nord", 50) == reference(texts, "nord", 50)
    assert index.similar("nord", 1) == [7]
    assert index.rarest("nordnord", 1) == ["dno"]


def test_exact_and_initials_maps_hold_one_or_many(runtime: Runtime, call: Call) -> None:
    a = call("graph.entity_create", scope="sales", type="organisation", name="Alpha Beta")
    b = call("graph.entity_create", scope="sales", type="organisation", name="Beta")
    c = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Alpha Beta",
        parent_id=b["entity"]["id"],
        force=True,
        reason="the department of Beta",
    )
    index = index_for(runtime.home.scope_db("sales"))
    assert index.exact("alpha beta") == {1, 3}
    assert index.by_initials("ab", 10) == [1, 3]
    call("graph.entity_update", scope="sales", id=a["entity"]["id"], name="Gamma Delta")
    assert index.exact("alpha beta") == {3} and index.by_initials("ab", 10) == [3]
    assert index.by_initials("gd", 10) == [1]
    call("graph.entity_update", scope="sales", id=c["entity"]["id"], name="Epsilon")
    assert index.exact("alpha beta") == set() and index.by_initials("ab", 10) == []


def test_initials_with_a_digit_are_not_held(runtime: Runtime, call: Call) -> None:
    call("graph.entity_create", scope="sales", type="organisation", name="Vertrieb Nord 17")
    index = index_for(runtime.home.scope_db("sales"))
    assert index.exact("vertrieb nord 17") == {1}
    assert index.by_initials("vn1", 10) == []  # the initials pass could never ask for it


def test_type_filter_reads_past_the_first_row_batch(call: Call) -> None:
    for i in range(12):
        call(
            "graph.entity_create",
            scope="sales",
            type="project",
            name=f"Kranich {i:02d}",
            force=True,
            reason="numbered",
        )
    person = call(
        "graph.entity_create",
        scope="sales",
        type="person",
        name="Kranich 99",
        force=True,
        reason="a person",
    )
    out = call("graph.entity_resolve", scope="sales", q="Kranich 0", type="person")
    assert [c["id"] for c in out["candidates"]] == [person["entity"]["id"]]


def test_equal_scores_order_by_depth_across_batches(call: Call) -> None:
    parent = None
    made = []
    for _ in range(10):  # the same name ten levels deep: equal scores, different depths
        out = call(
            "graph.entity_create",
            scope="sales",
            type="department",
            name="Lager",
            parent_id=parent,
            force=True,
            reason="one store per level",
        )
        parent = out["entity"]["id"]
        made.append(parent)
    out = call("graph.entity_resolve", scope="sales", q="Lager")
    assert [c["id"] for c in out["candidates"]] == made[:5]


@pytest.mark.parametrize("similar_check", [True, False])
def test_literal_duplicate_within_one_transaction(
    runtime: Runtime, call: Call, similar_check: bool
) -> None:
    # The index holds only what is committed: once the write added an entity, the store
    # answers the literal check (with the similar check on, the index answers the first).
    call("graph.entity_create", scope="sales", type="organisation", name="Seed Org")
    db = runtime.home.scope_db("sales")
    index = index_for(db)
    assert len(index) == 1  # built: the check now asks entity_fts for the rarest trigrams
    author = Author.of("mcp", "grant:test", "2026-11-30T09:00:00.000Z", "2026-11-30")
    with pytest.raises(GroundnoteError) as exc, db.write() as conn:
        for name in ("Nordlicht Werke 42", "NORDLICHT werke 42"):
            create_entity(
                conn,
                index,
                runtime.config.graph,
                "sales",
                author,
                type="organisation",
                name=name,
                aliases=[],
                parent_id=None,
                similar_check=similar_check,
            )
    assert exc.value.code == "duplicate-candidate"
    assert exc.value.body()["candidates"][0]["name"] == "Nordlicht Werke 42"
    assert len(index) == 1  # rolled back, never published


def test_the_index_and_the_store_find_the_same_literal_duplicates(
    runtime: Runtime, call: Call
) -> None:
    """The literal check asks the index where it holds everything committed, the store
    otherwise: both must name the same entities, whatever the case, spacing, umlaut spelling
    or legal form of the name, and leave out other parents, types and archived ones."""
    made: dict[str, str] = {}
    top = call("graph.entity_create", scope="sales", type="organisation", name="Müller Bau GmbH")
    made["top"] = top["entity"]["id"]
    for parent in (None, made["top"]):
        for type, name in (("department", "Vertrieb Süd"), ("project", "Vertrieb Süd")):
            out = call(
                "graph.entity_create", scope="sales", type=type, name=name, parent_id=parent,
                force=True, reason="each parent and type holds its own",
            )  # fmt: skip
            made[f"{parent}/{type}"] = out["entity"]["id"]
    gone = call(
        "graph.entity_create", scope="sales", type="department", name="Lager Ost",
        parent_id=made["top"],
    )  # fmt: skip
    archive(runtime, "sales", gone["entity"]["id"])
    asked = [
        "Vertrieb Süd", "VERTRIEB SÜD", "  vertrieb süd ", "Vertrieb Sued", "Müller Bau GmbH",
        "müller bau gmbh", "Müller Bau", "Lager Ost", "Vertrieb Nord",
    ]  # fmt: skip
    db = runtime.home.scope_db("sales")
    index = index_for(db)
    with db.write() as conn:
        assert entities._index_holds_all(conn)
        for name, parent, type in itertools.product(
            asked, (None, made["top"]), ("department", "project", "organisation")
        ):
            held = entities._literal_held(index, parent, type, name, None)
            stored = entities._literal_duplicates(conn, parent, type, name, None, index)
            assert [(m.id, m.path) for m in held] == [(m.id, m.path) for m in stored], name
    some = entities._literal_held(index, made["top"], "department", "vertrieb süd", None)
    assert [m.id for m in some] == [made[f"{made['top']}/department"]]


def test_the_index_and_the_store_place_a_parent_alike(runtime: Runtime, call: Call) -> None:
    """The parent check asks the index where it holds everything committed: the same level,
    and the same refusal for an archived, a missing or a malformed parent."""
    chain: list[str | None] = [None]
    for depth in range(3):
        out = call(
            "graph.entity_create", scope="sales", type="department", name=f"Ebene {depth}",
            parent_id=chain[-1],
        )  # fmt: skip
        chain.append(out["entity"]["id"])
    archived = call("graph.entity_create", scope="sales", type="department", name="Alt")
    archive(runtime, "sales", archived["entity"]["id"])
    asked = [*chain, archived["entity"]["id"], "sales-e0999", "sales-e01", "sales-e", "sales-x1"]
    db = runtime.home.scope_db("sales")
    index = index_for(db)

    def outcome(place: Callable[[], int]) -> int | str:
        try:
            return place()
        except GroundnoteError as exc:
            return exc.code

    with db.write() as conn:
        assert entities._index_holds_all(conn)
        found = [outcome(lambda p=p: entities._held_parent_level(index, "sales", p)) for p in asked]
        stored = [outcome(lambda p=p: entities._check_parent(conn, "sales", p)) for p in asked]
    assert found == stored
    assert found[:4] == [0, 1, 2, 3]
    assert found[4:] == ["parent-archived", *["reference-unknown"] * 3, "scope-mismatch"]


def test_one_edit_outranks_two_edits_in_the_typo_tier(call: Call) -> None:
    # Both are within two edits of the query; cut at 0.94 they tied and the older id won.
    two = call(
        "graph.entity_create", scope="sales", type="department", name="Buchhaltung Hessen Mittel"
    )
    one = call(
        "graph.entity_create",
        scope="sales",
        type="department",
        name="Buchhaltung Hessen Mitte",
        force=True,
        reason="another office",
    )
    out = call("graph.entity_resolve", scope="sales", q="Buchhaltung Hesen Mitte")
    first, second = out["candidates"][:2]
    assert (first["id"], first["match"]) == (one["entity"]["id"], "typo")
    assert second["id"] == two["entity"]["id"]
    assert 0.94 > first["score"] > second["score"] > 0.90


def test_another_number_keeps_its_order_below_the_duplicate_threshold(call: Call) -> None:
    two = call(
        "graph.entity_create", scope="sales", type="department", name="Buchhaltung Hessen 811"
    )
    one = call(
        "graph.entity_create", scope="sales", type="department", name="Buchhaltung Hessen 1144"
    )
    out = call("graph.entity_resolve", scope="sales", q="Buchhaltung Hessen 114")
    first, second = out["candidates"][:2]
    assert (first["id"], second["id"]) == (one["entity"]["id"], two["entity"]["id"])
    assert first["match"] == second["match"] == "typo"
    assert DUPLICATE_SCORE > first["score"] > second["score"] > MIN_SCORE
