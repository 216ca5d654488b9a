"""Tests of Groundnote on a Citus cluster, marked `citus`: they run when
GROUNDNOTE_TEST_DATABASE_URL names a Citus coordinator (scripts/citus-tests starts one) and
are deselected otherwise, listed with the reason at the end of the run."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import TEST_DATABASE_URL

_DESELECTED: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from tests.citus.databases import is_citus

    if TEST_DATABASE_URL is not None and is_citus(TEST_DATABASE_URL):
        return
    kept = [item for item in items if item.get_closest_marker("citus") is None]
    dropped = [item for item in items if item.get_closest_marker("citus") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
        _DESELECTED.extend(item.nodeid for item in dropped)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _DESELECTED:
        terminalreporter.write_line(
            f"{len(_DESELECTED)} citus test(s) deselected: GROUNDNOTE_TEST_DATABASE_URL names "
            "no Citus coordinator (scripts/citus-tests runs them on a cluster of its own)"
        )
