"""Property: after random source edits, the incremental store equals a rebuild from sources,
and the store-less build derives the same graph."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundnote.context.converge import up
from groundnote.context.memstore import up_in_memory
from groundnote.context.projectdb import store_path
from groundnote.domain.clock import FixedClock
from tests.context.project import TERMS, write, write_project
from tests.context.snapshot import snapshot

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
PATHS = ["guides/a.md", "guides/x/b.md", "blog/c.md", "blog/d.md"]
WORDS = ["email", "e-mail", "login", "sign in", "the", "account", "E-Mail", "Konto", "an"]

sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
paragraphs = st.lists(sentence, min_size=1, max_size=4)
edit = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(PATHS), paragraphs, st.booleans()),
    st.tuples(st.just("delete"), st.sampled_from(PATHS)),
    st.tuples(
        st.just("target"), st.sampled_from(PATHS), st.sampled_from(["de_DE", "nb-no"]), paragraphs
    ),
    st.tuples(st.just("terms"), st.lists(st.booleans(), min_size=6, max_size=6)),
    st.tuples(st.just("state"), st.sampled_from(PATHS), st.sampled_from(["intro", "u1"])),
)


def _apply(project: Path, change: tuple[object, ...]) -> None:
    kind = change[0]
    if kind == "write":
        _, path, paras, anchored = change
        assert isinstance(path, str) and isinstance(paras, list)
        first = paras[0] + (" {#intro}" if anchored else "")
        write(project, path, "\n\n".join([first, *paras[1:]]) + "\n")
    elif kind == "delete":
        (project / str(change[1])).unlink(missing_ok=True)
    elif kind == "target":
        _, path, locale, paras = change
        assert isinstance(paras, list)
        write(project, f"targets/{locale}/{path}", "\n\n".join(paras) + "\n")
    elif kind == "state":
        record = {
            "document": change[1],
            "unit": change[2],
            "variant": "de-DE",
            "decision": "signed_off",
            "target_hash": "t",
            "source_basis": "b",
            "by": "person:ruth",
            "at": "2026-11-30T09:00:00Z",
        }
        with (project / "state" / "edits.jsonl").open("a") as shard:
            shard.write(json.dumps(record) + "\n")
    else:
        keep = change[1]
        assert isinstance(keep, list)
        terms = [
            {
                **concept,
                "terms": [t for t, k in zip(concept["terms"], keep[i * 4 :], strict=False) if k]
                or concept["terms"][:1],
            }
            for i, concept in enumerate(TERMS["concepts"])
        ]
        write(project, "terms.json", json.dumps({"concepts": terms}))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(edit, min_size=1, max_size=4), min_size=1, max_size=3))
def test_incremental_equals_rebuild(batches: list[list[tuple[object, ...]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = write_project(Path(tmp))
        up(project, CLOCK)
        for batch in batches:
            for change in batch:
                _apply(project, change)
            up(project, CLOCK)
        incremental = snapshot(project)
        store_path(project).unlink()
        up(project, CLOCK)
        assert snapshot(project) == incremental
        memory = up_in_memory(project)  # the store-less build agrees too
        assert memory.graph.all_nodes() == incremental["nodes"]
        assert memory.graph.all_edges() == incremental["edges"]
