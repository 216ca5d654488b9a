"""An organisation's impulses go out and come back whole: concepts, edges with their weights,
usage, sequences and impulses with their expiry; the read shapes answer the same (issue 17
item 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from groundnote.auth import Right
from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import ValidationFailed
from groundnote.impulses import EMPTY_ORG, IMPULSES_TRANSFER
from groundnote.runtime import Runtime, open_runtime
from groundnote.store.transfer import export_lines, import_lines, refuse_unless_empty
from groundnote.surfaces.cli.main import cli
from tests.conftest import home_on_database, make_principal


def _export(runtime: Runtime, org: str) -> str:
    with runtime.home.instance.read() as conn:
        return "".join(f"{line}\n" for line in export_lines(conn, IMPULSES_TRANSFER, org))


def _caller(runtime: Runtime) -> Any:
    runtime.home.create_scope("sales")
    who, _ = make_principal(runtime, "agent", {"sales": Right.PROPOSE}, ["mcp"])

    def call(name: str, /, **raw: Any) -> dict[str, Any]:
        out = runtime.invoke(runtime.registry.get(name), raw, principal=who, channel="mcp")
        return out.model_dump(mode="json")

    return call, who


def _history(runtime: Runtime, clock: FixedClock) -> dict[str, str]:
    call, _ = _caller(runtime)
    runtime.config.impulses.audit_ttl_seconds = 3600  # audit impulses that expire
    first = call("impulses.concept_create", concept={"name": "Mahnwesen", "shape": "lesson"})
    clock.moment += timedelta(seconds=5)
    second = call("impulses.concept_create", concept={"name": "Zahlungsziel", "shape": "fact"})
    runtime.config.impulses.audit_ttl_seconds = None  # and persistent ones
    a, b = first["concept"]["id"], second["concept"]["id"]
    for _ in range(3):  # the edge's weight moves with each observation
        clock.moment += timedelta(seconds=1)
        call("impulses.concept_link", from_concept_id=a, to_concept_id=b, edge_type="co_occurs")
    call("impulses.concept_record_usage", concept_id=a, trace_id="t-1", outcome="success")
    call("impulses.concept_sequence_record", concept_ids=[a, b, a], trace_id="t-1")
    call("impulses.concept_upsert_by_signature", pointer_type="mail", shape="invoice")
    return {"a": a, "b": b, "audit": first["audit_impulse_id"]}


def _reads(runtime: Runtime, ids: dict[str, str]) -> list[dict[str, Any]]:
    """The organisation's read shapes, as a reader of it on the API gets them."""
    principal = runtime.authenticate(
        make_principal(runtime, "reader", {"*": Right.READ}, ["api"])[1]
    )

    def call(name: str, /, **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(name)
        return runtime.invoke(cap, raw, principal=principal, channel="api").model_dump(mode="json")

    return [
        call("impulses.concept", concept_id=ids["a"]),
        call("impulses.relatedConcepts", concept_id=ids["a"]),
        call("impulses.impulseCooccurrenceEdges"),
        call("impulses.conceptUsageStats", concept_id=ids["a"]),
        call("impulses.conceptSequence"),
        call("impulses.impulse_read", id=ids["audit"]),
    ]


@pytest.fixture
def homes(tmp_path: Path, other_database_url: str | None) -> tuple[Runtime, Runtime, FixedClock]:
    """Two homes; on PostgreSQL the second in a database of its own, as on another server."""
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    return (
        open_runtime(tmp_path / "a", environ={}, clock=clock),
        open_runtime(home_on_database(tmp_path / "b", other_database_url), environ={}, clock=clock),
        clock,
    )


def test_an_organisations_impulses_round_trip(homes: tuple[Runtime, Runtime, FixedClock]) -> None:
    original, fresh, clock = homes
    ids = _history(original, clock)
    first = _export(original, "local")
    for table in ("concept", "concept_edge", "concept_usage", "concept_sequence", "impulse"):
        assert f'"table":"{table}"' in first
    assert '"expires_at":"2026-11-30T10:00:00.000Z"' in first and '"expires_at":null' in first
    with fresh.home.instance.write() as conn:
        counts = import_lines(conn, IMPULSES_TRANSFER, "local", first.splitlines())
    assert counts["concept_sequence_member"] == 3
    assert _export(fresh, "local") == first
    assert _reads(original, ids) == _reads(fresh, ids)
    # another organisation's impulses are in neither export
    assert _export(original, "globex").count("\n") == 1


def test_an_import_into_an_org_with_impulses_is_refused(
    homes: tuple[Runtime, Runtime, FixedClock],
) -> None:
    original, _, clock = homes
    _history(original, clock)
    with original.home.instance.write() as conn, pytest.raises(ValidationFailed) as refused:
        refuse_unless_empty(conn, IMPULSES_TRANSFER, "local", "The organisation local", EMPTY_ORG)
    assert "concept rows" in refused.value.message


def test_the_command_line_moves_impulses_between_homes(
    homes: tuple[Runtime, Runtime, FixedClock], tmp_path: Path
) -> None:
    original, fresh, clock = homes
    _history(original, clock)
    original.close()
    fresh.close()
    file = tmp_path / "impulses.jsonl"
    # the test's GROUNDNOTE_DATABASE_URL names the first home's database; the flag wins over it
    b_url = fresh.config.database.url
    b = ["--home", str(tmp_path / "b"), *(["--database-url", b_url] if b_url else [])]
    runner = CliRunner()
    out = runner.invoke(
        cli, ["--home", str(tmp_path / "a"), "export", "impulses", "--org", "local", str(file)]
    )
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, [*b, "import", "impulses", str(file), "--org", "acme"])
    assert out.exit_code == 0, out.output
    assert "3 concept" in out.output
    again = runner.invoke(cli, [*b, "import", "impulses", str(file), "--org", "acme"])
    assert again.exit_code == 1 and "not empty" in again.output
