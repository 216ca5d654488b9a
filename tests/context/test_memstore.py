"""The store-less build: the same sources give the same graph as the project store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from groundnote.context.converge import up
from groundnote.context.memstore import up_in_memory
from groundnote.context.projectdb import sidecar_path
from groundnote.context.sources import StateRecord
from groundnote.domain.clock import FixedClock
from tests.context.project import write, write_project
from tests.context.snapshot import snapshot

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def test_in_memory_graph_equals_the_project_store(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    write(project, "guides/more/twice.md", "Sign in.\n\nSend an e-mail.\n")
    write(project, "targets/nb_NO/guides/more/twice.md", "Logg inn.\n\nSend en e-post.\n")
    up(project, CLOCK)
    stored = snapshot(project)
    memory = up_in_memory(project)
    assert memory.graph.all_nodes() == stored["nodes"]
    assert memory.graph.all_edges() == stored["edges"]


def test_staged_state_persists_in_the_sidecar_and_only_it_is_lost(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    memory = up_in_memory(project)
    memory.stage(
        StateRecord.model_validate(
            {
                "document": "start",
                "unit": "intro",
                "variant": "de-DE",
                "decision": "needs_work",
                "target_hash": "t-2",
                "source_basis": "b-2",
                "by": "person:ruth",
                "at": "2026-11-30T09:00:00Z",
            }
        )
    )
    memory.save(sidecar_path(project))
    again = up_in_memory(project)
    [state] = [n for n in again.graph.all_nodes() if n.label == "unit_state"]
    assert state.props["decision"] == "needs_work" and state.props["staged"] is True
    sidecar_path(project).unlink()
    rebuilt = up_in_memory(project)
    [state] = [n for n in rebuilt.graph.all_nodes() if n.label == "unit_state"]
    assert state.props["decision"] == "signed_off" and state.props["staged"] is False
