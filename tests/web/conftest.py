"""The approval pages reuse the approval channel's fixtures, plus a real uvicorn and Debian's
Chromium driven by playwright."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.structure.conftest import agent_writes, approver, ruth, web
from tests.surfaces.conftest import live_server

__all__ = ["agent_writes", "approver", "browser", "live_server", "ruth", "web"]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
