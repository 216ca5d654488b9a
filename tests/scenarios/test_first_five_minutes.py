"""The README's "first five minutes", run as written.

`scripts/serve --demo` as a real process; the MCP client configuration it prints, pasted as is
into the official Python MCP client (stdio: exactly the printed command, args and env; HTTP:
the printed URL and header); the calls the README names, in its order; the printed login link
and the approval page in headless Chromium; then `search` shows the new customer in the rule's
bundle, reached through the mail, and — after the link `propose_rule`'s `next` leads to, and
a person's confirmation on the rule's page — as the rule's own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import Browser, Page, sync_playwright

from tests.surfaces.conftest import free_port
from tests.web.conftest import CHROMIUM_ARGS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
MAIL_ID = "mail:<cafe-morgenrot@kessler.example>"
MAIL = {
    "kind": "mail",
    "id": MAIL_ID,
    "subject": "New customer Café Morgenrot",
    "sender": "Ines Kessler <ines@kessler.example>",
    "to": ["vertrieb@kessler.example"],
    "body": "Café Morgenrot joins Vertrieb Nord. They get free delivery on orders over 200 EUR.",
}
T = TypeVar("T")
STATEMENT = "Café Morgenrot gets free delivery on orders over 200 EUR."


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    return README[start : README.index("\n## ", start + 1)]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """`scripts/serve --demo` on a home of its own; (base URL, login link, configuration)."""
    port = free_port()
    env = {**os.environ, "GROUNDNOTE_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    with subprocess.Popen(
        [str(ROOT / "scripts" / "serve"), "--demo", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    ) as process:
        assert process.stdout is not None
        printed = ""
        deadline = time.monotonic() + 120
        while "An HTTP API token" not in printed:
            assert time.monotonic() < deadline and process.poll() is None, printed
            printed += process.stdout.readline()
        try:
            login = re.search(r"Approval\s+(\S+)", printed)
            assert login is not None
            start = printed.index('{\n  "mcpServers"')
            config = json.loads(printed[start : printed.index("\n}", start) + 2])
            base = f"http://127.0.0.1:{port}"
            _wait_for(base)
            yield base, login.group(1), config["mcpServers"]
        finally:
            process.terminate()
            process.wait(timeout=20)


def _wait_for(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/openapi.json")
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "serve did not answer"
            time.sleep(0.1)


def _as_pasted_stdio(entry: dict[str, Any]) -> StdioServerParameters:
    # Nothing added: a desktop client starts exactly this, with its own small environment.
    return StdioServerParameters(command=entry["command"], args=entry["args"], env=entry.get("env"))


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def _agent_files_the_mail(entry: dict[str, Any]) -> dict[str, Any]:
    """Step 2 over stdio: the calls the README names, in its order."""
    async with Client(_as_pasted_stdio(entry)) as client:
        stored = _ok(await client.call_tool("store_source", {"scope": "demo", "source": MAIL}))
        missing = _ok(
            await client.call_tool("entity_resolve", {"scope": "demo", "q": "Café Morgenrot"})
        )
        assert missing["candidates"] == []
        team = _ok(
            await client.call_tool("entity_resolve", {"scope": "demo", "q": "Vertrieb Nord"})
        )
        north = team["candidates"][0]
        assert north["name"] == "Vertrieb Nord"
        created = _ok(
            await client.call_tool(
                "entity_create",
                {
                    "scope": "demo",
                    "type": "customer",
                    "name": "Café Morgenrot",
                    "parent_id": north["id"],
                    "evidence": stored["ref"],
                    "reason": "the mail of Ines Kessler names the new customer",
                },
            )
        )
        customer = created["entity"]
        assert [p["name"] for p in created["path"]][-2:] == ["Vertrieb Nord", "Café Morgenrot"]
        link = _ok(
            await client.call_tool(
                "link_propose",
                {
                    "scope": "demo",
                    "from_ref": stored["ref"],
                    "to_ref": customer["ref"],
                    "type": "concerns",
                    "confidence": 0.9,
                    "reason": "the mail is about the new customer",
                },
            )
        )
        rule = _ok(
            await client.call_tool(
                "propose_rule",
                {
                    "scope": "demo",
                    "statement": STATEMENT,
                    "evidence": {
                        "quote": "They get free delivery on orders over 200 EUR.",
                        "refs": [stored["ref"]],
                    },
                },
            )
        )
    return {"customer": customer, "link": link["link"], "rule": rule, "source": stored["ref"]}


async def _search(entry: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Step 4 over streamable HTTP, with the printed URL and header."""
    headers = entry["headers"]
    async with (
        httpx2.AsyncClient(headers=headers) as http_client,
        Client(streamable_http_client(entry["url"], http_client=http_client)) as client,
    ):
        scopes = _ok(await client.call_tool("list_scopes", {}))
        assert [s["name"] for s in scopes["scopes"]] == ["demo"]
        query = {"scope": "demo", "query": "free delivery Morgenrot", **extra}
        return _ok(await client.call_tool("search", query))


async def _link_the_rule(entry: dict[str, Any], rule: str, customer: str) -> dict[str, Any]:
    async with Client(_as_pasted_stdio(entry)) as client:
        return _ok(
            await client.call_tool(
                "link_propose",
                {
                    "scope": "demo",
                    "from_ref": f"rule/{rule}",
                    "to_ref": customer,
                    "type": "concerns",
                    "confidence": 0.95,
                    "reason": "the rule is about Café Morgenrot",
                },
            )
        )


def _run(call: Callable[..., Awaitable[T]], *args: Any) -> T:
    """An MCP client's session on its own thread: Playwright's sync API holds this one's loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, call, *args).result()


def _confirm(page: Page, item_id: str, button: str = "Confirm") -> str:
    page.locator(f"#{item_id}").get_by_role("button", name=button).click()
    return page.locator(".flash-ok").inner_text()


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_the_readme_flow_puts_the_customer_in_the_rules_bundle(
    served: tuple[str, str, dict[str, Any]], browser: Browser
) -> None:
    base, login, servers = served
    flow = _section("The first five minutes")
    assert "scripts/serve --demo" in flow
    named = ["store_source", "entity_resolve", "entity_create", "link_propose", "propose_rule"]
    assert [flow.index(f"`{tool}`") for tool in named] == sorted(
        flow.index(f"`{tool}`") for tool in named
    ), "the README names the calls in this order"

    # 2. the agent, over the stdio entry exactly as printed
    done = _run(_agent_files_the_mail, servers["groundnote"])
    customer, link, rule = done["customer"], done["link"], done["rule"]
    assert rule["status"] == "proposed" and rule["approval_url"].startswith(base)
    assert rule["next"][0]["tool"] == "link_propose"

    # 3. a person on the approval page: the agent's writes are the agent's
    context = browser.new_context()
    page = context.new_page()
    page.goto(login)
    page.wait_for_url(f"{base}/approval")
    page.goto(f"{base}/approval/structure?scope=demo")
    assert "grant:agent-mcp" in page.locator(f"#{customer['id']}").inner_text()
    assert "local-operator" not in page.content()
    assert _confirm(page, customer["id"]) == f"Confirmed Café Morgenrot ({customer['id']})."
    assert _confirm(page, link["id"]) == f"Confirmed the concerns link {link['id']}."
    page.goto(rule["approval_url"])
    assert _confirm(page, rule["id"], "Adopt") == f"Rule {rule['id']} is adopted now."

    # 4. the question, over the HTTP entry exactly as printed: the customer is in the bundle,
    # reached through the mail
    found = _run(_search, servers["groundnote-http"])
    [bundle] = [b for b in found["bundles"] if b["head"]["id"] == rule["id"]]
    [entities] = [g for g in bundle["groups"] if g["kind"] == "entity"]
    assert entities["refs"] == [customer["ref"]]
    assert entities["via"] == {customer["ref"]: done["source"]}
    assert found["related"][customer["ref"]]["title"].endswith("Vertrieb Nord › Café Morgenrot")
    full = _run(partial(_search, servers["groundnote-http"], compact=False))
    [head] = [b["head"] for b in full["bundles"] if b["head"]["id"] == rule["id"]]
    assert [(e["name"], e["via"]) for e in head["entities"]] == [("Café Morgenrot", done["source"])]
    by_entity = _run(partial(_search, servers["groundnote-http"], entity=customer["id"]))
    assert [b["head"]["id"] for b in by_entity["bundles"]] == [rule["id"]]

    # the step `next` leads to: the rule's own link, confirmed on the rule's page
    own = _run(_link_the_rule, servers["groundnote"], rule["id"], customer["ref"])
    page.goto(rule["approval_url"])
    assert _confirm(page, own["link"]["id"]) == f"Confirmed the concerns link {own['link']['id']}."
    found = _run(_search, servers["groundnote-http"])
    [bundle] = [b for b in found["bundles"] if b["head"]["id"] == rule["id"]]
    [entities] = [g for g in bundle["groups"] if g["kind"] == "entity"]
    assert entities["refs"] == [customer["ref"]] and entities["via"] == {}
    context.close()
