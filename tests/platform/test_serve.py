"""The main job: `groundnote serve` as a real process on a fresh home and on later starts.

It binds before it prints or writes anything, names the home, the scopes and the local
person, prints an agent's grant (propose, MCP only) with the absolute command and the token
once, records the port it runs on for the links other commands print, and loads the demo
company on request. Commands without a home say so instead of making one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.surfaces.conftest import free_port

pytestmark = pytest.mark.slow

GROUNDNOTE = [sys.executable, "-m", "groundnote"]
BANNER_END = "An HTTP API token"
ENV = {**os.environ, "COLUMNS": "200"}


def _read_until(process: subprocess.Popen[str], marker: str, timeout: float) -> str:
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        if time.monotonic() > deadline or process.poll() is not None:
            raise AssertionError(f"serve printed no {marker!r}:\n{seen}")
        seen += process.stdout.readline()
    return seen


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One command of another process on the home serve runs on."""
    return subprocess.run(
        [*GROUNDNOTE, "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )


@contextmanager
def _serve(home: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    command = [*GROUNDNOTE, "--home", str(home), "serve", *args]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV
    ) as process:
        try:
            yield process
        finally:
            process.terminate()
            process.wait(timeout=20)


def _config(printed: str) -> dict[str, object]:
    start = printed.index('{\n  "mcpServers"')
    data: dict[str, object] = json.loads(printed[start : printed.index("\n}", start) + 2])
    return data


def _wait_for(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/openapi.json")
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "serve did not answer"
            time.sleep(0.1)


def test_the_first_start_prints_an_agent_grant_and_later_starts_mint_none(
    tmp_path: Path,
) -> None:
    home = tmp_path / "fresh"
    port = free_port()
    with _serve(home, "--port", str(port)) as process:
        printed = _read_until(process, BANNER_END, timeout=60)
        base = f"http://127.0.0.1:{port}"
        assert f"home {home.resolve()}  (new)" in printed
        assert "Scopes        none yet" in printed and "--demo" in printed
        assert "one-time login link for person:local" in printed
        assert f"{base}/v1" in printed and f"{base}/approval/login?token=" in printed
        servers = _config(printed)["mcpServers"]
        assert isinstance(servers, dict)
        stdio = servers["groundnote"]
        # the absolute command: a client's PATH need not hold .venv/bin
        assert Path(stdio["command"]).is_absolute() and Path(stdio["command"]).exists()
        assert stdio["args"][-3:] == ["--home", str(home.resolve()), "mcp"]
        token = stdio["env"]["GROUNDNOTE_TOKEN"]
        assert token.startswith("gn_") and token not in " ".join(stdio["args"])
        http = servers["groundnote-http"]
        assert http["url"] == f"{base}/mcp"
        assert http["headers"] == {"Authorization": f"Bearer {token}"}
        assert "grant:agent-mcp (propose on every scope, MCP only)" in printed
        _wait_for(base)
        # the agent's grant is for MCP only: the HTTP API refuses it by channel
        api = httpx.get(f"{base}/v1/scopes", headers={"Authorization": f"Bearer {token}"})
        assert api.status_code == 403 and api.json()["error"] == "channel-not-allowed"
        served = json.loads((home / "work" / "serve.json").read_text())
        assert (served["host"], served["port"]) == ("127.0.0.1", port)
    assert list((home / "scopes").glob("*.db")) == []  # no empty scope is made

    with _serve(home, "--port", "0") as second:
        printed = _read_until(second, BANNER_END, timeout=60)
        assert "(new)" not in printed
        assert "was shown at the first start" in printed and "gn_" not in printed
        assert '"GROUNDNOTE_TOKEN": "TOKEN"' in printed  # the template for another grant
        port_now = json.loads((home / "work" / "serve.json").read_text())["port"]
        assert port_now != 0 and f"http://127.0.0.1:{port_now}/mcp" in printed
    grants = _run(home, "grant", "list")
    assert grants.stdout.count("grant:agent-mcp") == 1


def test_a_port_in_use_is_named_before_anything_is_printed_or_made(tmp_path: Path) -> None:
    home = tmp_path / "busy"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = _run(home, "serve", "--port", str(port))
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Errno" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and not home.exists()


def test_the_demo_company_is_loaded_once_in_its_own_scope(tmp_path: Path) -> None:
    home = tmp_path / "demo"
    with _serve(home, "--port", "0", "--demo") as process:
        printed = _read_until(process, BANNER_END, timeout=90)
        assert "Scopes        demo (the demo company, loaded now)" in printed
    with _serve(home, "--port", "0", "--demo") as process:
        printed = _read_until(process, BANNER_END, timeout=60)
        assert "Scopes        demo (the demo company)" in printed
    tree = _run(home, "entity", "tree", "--scope", "demo", "--output", "json")
    [top] = json.loads(tree.stdout)["nodes"]
    assert (top["name"], top["status"]) == ("Kessler Feinmechanik GmbH", "active")


def test_commands_without_a_home_say_so_and_make_none(tmp_path: Path) -> None:
    env = {k: v for k, v in ENV.items() if k != "GROUNDNOTE_HOME"}
    for args in (["scopes"], ["status", "--scope", "x"], ["grant", "list"], ["check"]):
        done = subprocess.run(
            [*GROUNDNOTE, *args], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env
        )
        assert done.returncode == 2, done.stderr
        assert f"there is no Groundnote home at {tmp_path / '.groundnote'}" in done.stderr
        assert "--home DIR" in done.stderr and "GROUNDNOTE_HOME" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / ".groundnote").exists()
    made = subprocess.run(
        [*GROUNDNOTE, "scope", "create", "sales"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert made.returncode == 0 and "created the home" in made.stdout
    listed = subprocess.run(
        [*GROUNDNOTE, "scopes"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env
    )
    assert listed.returncode == 0 and "sales" in listed.stdout


def test_links_printed_elsewhere_use_the_port_serve_runs_on(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    port = free_port()
    with _serve(home, "--port", str(port), "--demo") as process:
        _read_until(process, BANNER_END, timeout=90)
        link = _run(home, "person", "link", "local")
        assert link.stdout.startswith(f"http://127.0.0.1:{port}/approval/login?token=")
        assert link.stderr == ""  # serve runs there
        proposals = ["rules", "proposals", "--scope", "demo", "--output", "json"]
        rules = _run(home, *proposals)
        [waiting] = json.loads(rules.stdout)["rules"]
        assert waiting["approval_url"].startswith(f"http://127.0.0.1:{port}/approval/rules/")
        page = httpx.get(waiting["approval_url"])
        assert page.status_code == 401  # serve answers there: the page asks for a login
    stopped = _run(home, "person", "link", "local")
    assert stopped.stdout.startswith(f"http://127.0.0.1:{port}/")
    assert "serve is not running now" in stopped.stderr
    (home / "groundnote.json").write_text('{"public_url": "https://gn.example.org"}')
    public = _run(home, "person", "link", "local")
    assert public.stdout.startswith("https://gn.example.org/approval/login?token=")


def test_serve_on_every_address_prints_links_a_browser_can_open(tmp_path: Path) -> None:
    home = tmp_path / "wildcard"
    port = free_port()
    with _serve(home, "--host", "0.0.0.0", "--port", str(port)) as process:
        printed = _read_until(process, BANNER_END, timeout=90)
        assert "0.0.0.0" not in printed
        login = next(w for w in printed.split() if "/approval/login?token=" in w)
        assert login.startswith(f"http://127.0.0.1:{port}/approval/login?token=")
        _wait_for(f"http://127.0.0.1:{port}")
        link = _run(home, "person", "link", "local")
        assert link.stdout.startswith(f"http://127.0.0.1:{port}/approval/login?token=")
        assert httpx.get(link.stdout.strip(), follow_redirects=False).status_code in (200, 303)


def test_a_bad_config_stops_start_up_naming_the_key(tmp_path: Path) -> None:
    home = tmp_path / "bad"
    home.mkdir()
    (home / "groundnote.json").write_text('{"graph": {"max_dept": 3}}')
    done = subprocess.run(
        [*GROUNDNOTE, "--home", str(home), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "graph.max_dept" in done.stderr and "max_depth" in done.stderr
    assert "Traceback" not in done.stderr
