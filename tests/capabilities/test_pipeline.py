"""The registry's pipeline: its order, and each kind of tenancy it resolves before a handler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from groundnote.auth import Principal, Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    Context,
    McpExposure,
    Registry,
    Tenancy,
)
from groundnote.domain.errors import GroundnoteError
from groundnote.domain.guidance import StrictModel
from groundnote.runtime import Runtime
from tests.conftest import make_principal
from tests.context.project import write_project


class ById(StrictModel):
    item: str


class Seen(StrictModel):
    scopes: list[str]


def _seen(ctx: Context, value: ById) -> Seen:
    return Seen(scopes=list(ctx.scopes))


PROBE: Capability[ById, Seen] = Capability(
    name="test.by_id",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.id_field("item"),
    input=ById,
    output=Seen,
    description="A probe.",
    handler=_seen,
    mcp=McpExposure("by_id", "Read by id"),
    annotations=Annotations(read_only=True),
)


def refusal(runtime: Runtime, name: str, raw: Any, principal: Principal | None) -> str:
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(runtime.registry.get(name), raw, principal=principal, channel="mcp")
    return exc.value.code


def test_the_steps_run_in_order(runtime: Runtime, scope: str) -> None:
    """authenticate → channel → validate → tenancy and right: each refusal names the first
    step that stops the call, so bad input never tells a caller without a right anything."""
    runtime.home.create_scope("hr")
    elsewhere, _ = make_principal(runtime, "elsewhere", {"hr": Right.PROPOSE}, ["mcp"])
    api_only, _ = make_principal(runtime, "api-only", {scope: Right.PROPOSE}, ["api"])
    bad = {"scope": scope, "colour": "red"}
    assert refusal(runtime, "core.status", bad, None) == "auth-required"
    assert refusal(runtime, "core.status", bad, api_only) == "channel-not-allowed"
    assert refusal(runtime, "core.status", bad, elsewhere) == "validation-failed"
    assert refusal(runtime, "core.status", {"scope": scope}, elsewhere) == "scope-not-allowed"


def test_an_omitted_scope_reaches_the_scopes_the_grant_holds_the_right_on(
    runtime: Runtime, scope: str
) -> None:
    runtime.home.create_scope("hr")
    runtime.home.create_scope("legal")
    grant, _ = make_principal(
        runtime, "two", {scope: Right.READ, "hr": Right.PROPOSE}, ["mcp", "cli"]
    )
    out = runtime.invoke(
        runtime.registry.get("core.status"), {}, principal=grant, channel="mcp"
    ).model_dump()
    assert [s["scope"] for s in out["scopes"]] == ["hr", "sales"]
    listed = runtime.invoke(
        runtime.registry.get("core.list_scopes"), {}, principal=grant, channel="mcp"
    ).model_dump()
    assert [(s["name"], s["right"]) for s in listed["scopes"]] == [
        ("hr", "propose"),
        ("sales", "read"),
    ]


def test_a_scope_an_id_carries_is_checked_like_a_named_one(runtime: Runtime, scope: str) -> None:
    runtime.home.create_scope("hr")
    registry = Registry([PROBE])
    grant, _ = make_principal(runtime, "sales-reader", {scope: Right.READ}, ["mcp"])

    def call(item: str) -> dict[str, Any]:
        try:
            out = registry.invoke(
                runtime.home, runtime.config, PROBE, {"item": item}, principal=grant, channel="mcp"
            )
        except GroundnoteError as exc:
            return exc.body()
        return out.model_dump()

    assert call("entity/sales-e0007@3") == {"scopes": ["sales"]}
    assert call("sales-0001") == {"scopes": ["sales"]}
    assert call("link/sales-l0042") == {"scopes": ["sales"]}
    foreign, missing = call("hr-e0001"), call("nowhere-e0001")
    assert foreign == missing and foreign["error"] == "scope-not-allowed"


def test_the_right_in_an_organisation_is_the_strongest_a_grant_holds(
    runtime: Runtime, scope: str
) -> None:
    reader, _ = make_principal(runtime, "reader", {scope: Right.READ}, ["mcp"])
    writer, _ = make_principal(runtime, "writer", {scope: Right.PROPOSE}, ["mcp"])
    nothing, _ = make_principal(runtime, "nothing", {}, ["mcp"])
    raw = {"pointer_type": "mail", "shape": "x"}
    name = "impulses.concept_upsert_by_signature"
    assert refusal(runtime, name, raw, reader) == "right-missing"
    assert refusal(runtime, name, raw, nothing) == "right-missing"
    out = runtime.invoke(runtime.registry.get(name), raw, principal=writer, channel="mcp")
    assert out.model_dump()["created"] is True


def test_a_directory_is_checked_on_the_scope_it_is_bound_to(
    runtime: Runtime, scope: str, tmp_path: Path
) -> None:
    runtime.home.create_scope("hr")
    bound, loose = tmp_path / "bound", tmp_path / "loose"
    write_project(bound)
    write_project(loose)
    owner, _ = make_principal(runtime, "owner", {scope: Right.PROPOSE}, ["cli"])
    elsewhere, _ = make_principal(runtime, "elsewhere", {"hr": Right.PROPOSE}, ["cli"])
    bind = runtime.registry.get("context.bind")
    runtime.invoke(bind, {"path": str(bound), "scope": scope}, principal=owner, channel="cli")
    up = runtime.registry.get("context.up")
    with pytest.raises(GroundnoteError) as exc:
        runtime.invoke(up, {"path": str(bound), "plan": True}, principal=elsewhere, channel="cli")
    assert exc.value.code == "scope-not-allowed"
    # A directory bound to no scope is the caller's own files: the right, anywhere, suffices.
    out = runtime.invoke(up, {"path": str(loose), "plan": True}, principal=elsewhere, channel="cli")
    assert out.model_dump()["planned"] is True


def test_the_approval_channel_is_for_persons_only(runtime: Runtime, scope: str) -> None:
    grant = Principal(
        id="grant:sneaky", org="local", channels=frozenset({"approval"}), rights={"*": Right.DECIDE}
    )
    from groundnote.surfaces.http.approval import approval_registry

    registry = approval_registry()
    cap = registry.get("structure.overview")
    with pytest.raises(GroundnoteError) as exc:
        registry.invoke(runtime.home, runtime.config, cap, {}, principal=grant, channel="approval")
    assert exc.value.code == "channel-not-allowed"
