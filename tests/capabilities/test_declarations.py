"""What a declaration must say, and what the registry refuses to register without it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    Context,
    McpExposure,
    Registry,
    Tenancy,
)
from groundnote.domain.guidance import StrictModel
from groundnote.runtime import build_registry
from groundnote.surfaces.http.approval import approval_registry

ALL = [*build_registry(), *approval_registry()]
ROOT = Path(__file__).resolve().parents[2]

# The operation names the scope files' log records beyond seed 000 §3.1's list. The seed kept
# its list in a CHECK, so each new name meant a table rebuild; it is held here instead
# (DESIGN §15 P9): a new operation logged to the scope file is one line in this set.
LOGGED_BEYOND_THE_SEED = {
    "approval_pending",
    "approval_proposals",
    "approval_rule",
    "approval_source",
    "approval_scope",
    "approval_tree",
    "approval_entity",
    "approval_activity",
}


class Named(StrictModel):
    scope: str


class Out(StrictModel):
    ok: bool = True


def _answer(ctx: Context, value: Named) -> Out:
    return Out()


def _capability(**changes: Any) -> Capability[Any, Any]:
    base: Capability[Any, Any] = Capability(
        name="test.probe",
        kind="command",
        right=Right.PROPOSE,
        tenancy=Tenancy.field("scope"),
        input=Named,
        output=Out,
        description="A probe.",
        handler=_answer,
        mcp=McpExposure("probe", "Probe"),
        annotations=Annotations(read_only=False),
    )
    return dataclasses.replace(base, **changes)


def test_a_well_formed_declaration_registers() -> None:
    assert Registry([_capability()]).get("test.probe").tenancy == Tenancy.field("scope")


def test_a_capability_without_a_tenancy_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="declares no tenancy"):
        Registry([_capability(tenancy=None)])


def test_a_tenancy_naming_a_field_the_input_lacks_is_refused() -> None:
    """Else the scope check would look at nothing and pass every call, without a sound."""
    with pytest.raises(ValueError, match="Named does not have"):
        Registry([_capability(tenancy=Tenancy.id_field("entity_id"))])


def test_tenancy_and_annotations_have_no_default() -> None:
    with pytest.raises(TypeError, match="tenancy"):
        Capability(  # type: ignore[call-arg]
            name="test.probe",
            kind="query",
            right=Right.READ,
            input=Named,
            output=Out,
            description="A probe.",
            handler=_answer,
            annotations=Annotations(read_only=True),
        )
    with pytest.raises(TypeError, match="annotations"):
        Capability(  # type: ignore[call-arg]
            name="test.probe",
            kind="query",
            right=Right.READ,
            tenancy=Tenancy.field("scope"),
            input=Named,
            output=Out,
            description="A probe.",
            handler=_answer,
        )


def test_a_command_that_claims_to_be_read_only_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be advertised as read-only"):
        Registry([_capability(annotations=Annotations(read_only=True))])


def test_every_declared_command_is_advertised_as_writing() -> None:
    assert [c.name for c in ALL if c.kind == "command" and c.annotations.read_only] == []


def test_every_capability_names_where_its_scope_comes_from() -> None:
    for cap in ALL:
        assert isinstance(cap.tenancy, Tenancy), cap.name
        for name in cap.tenancy.names:
            assert name in cap.input.model_fields, (cap.name, name)


def _seed_operations() -> set[str]:
    """The operation list of seed 000 §3.1, as graph/0002 copied it into its CHECK."""
    text = (ROOT / "src/groundnote/graph/migrations/0002_graph.sql").read_text("utf-8")
    check = re.search(r"operation TEXT NOT NULL CHECK \(operation IN \((.*?)\)\)", text, re.S)
    assert check is not None
    return set(re.findall(r"'([a-z_]+)'", check.group(1)))


def test_the_scope_log_operations_are_the_seeds_and_the_named_additions() -> None:
    declared = {c.log_operation for c in ALL if c.log_operation is not None}
    assert len(_seed_operations()) == 23
    assert declared == _seed_operations() | LOGGED_BEYOND_THE_SEED
    assert all(re.fullmatch(r"[a-z][a-z_]{1,99}", op) for op in declared)


def test_a_new_operation_logs_to_the_scope_file_without_a_rebuild(tmp_path: Path) -> None:
    """graph/0004 took the list out of the table: the scope's log takes any declared name, and
    keeps its other checks (the channel) and the feedback's key to it."""
    from groundnote.runtime import open_runtime
    from groundnote.store.sql import IntegrityError

    log = (
        "INSERT INTO search_log (id, at, grant_id, channel, operation, outcome, input_sha256) "
        "VALUES (?, '2026-11-30T09:00:00.000Z', 'grant:x', ?, 'approval_rule', 'ok', 'h')"
    )
    runtime = open_runtime(tmp_path / "home", environ={})
    try:
        runtime.home.create_scope("sales")
        db = runtime.home.scope_db("sales")
        with db.write() as conn:
            conn.execute(log, ("s-1", "mcp"))
        with db.read() as conn:
            row = conn.execute("SELECT operation FROM search_log WHERE id = 's-1'").fetchone()
        assert row[0] == "approval_rule"
        with pytest.raises(IntegrityError), db.write() as conn:
            conn.execute(log, ("s-2", "carrier-pigeon"))
        with pytest.raises(IntegrityError), db.write() as conn:
            conn.execute(
                "INSERT INTO feedback (id, search_id, ref, verdict, given_by, given_at) "
                "VALUES (1, 'no-such-search', 'r', 'useful', 'x', '2026-11-30T09:00:00.000Z')"
            )
    finally:
        runtime.close()
