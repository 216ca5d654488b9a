"""The scope registry read: found scopes are remembered, a miss always asks instance.db."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundnote.domain.clock import FixedClock
from groundnote.domain.errors import GroundnoteError, scope_refusal
from groundnote.runtime import Runtime, open_runtime


def test_a_scope_created_elsewhere_is_found_after_a_miss(
    runtime: Runtime, home_path: Path, clock: FixedClock
) -> None:
    home = runtime.home
    with pytest.raises(GroundnoteError) as refused:
        home.scope_info("north")
    assert refused.value.code == scope_refusal().code  # not remembered: asked again below
    other = open_runtime(home_path, clock=clock, environ={})  # another process, same home
    try:
        other.home.create_scope("north", approval_mode="auto")
    finally:
        other.close()
    info = home.scope_info("north")
    assert (info.name, info.approval_mode) == ("north", "auto")
    assert home.scope_info("north") is info  # remembered
    assert home.scope_db("north").label == (
        "file north.db" if home.backend == "sqlite" else "schema scope_north"
    )
    with pytest.raises(GroundnoteError) as unknown:
        home.scope_info("south")
    assert unknown.value.code == scope_refusal().code
