"""The main job: `groundnote serve` on a fresh home creates the demo scope and the operator
grant, prints the URLs and a client configuration whose token works, and serves HTTP and MCP."""

from __future__ import annotations

import json
import os
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


def _read_until(process: subprocess.Popen[str], marker: str, timeout: float) -> str:
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        if time.monotonic() > deadline or process.poll() is not None:
            raise AssertionError(f"serve printed no {marker!r}:\n{seen}")
        seen += process.stdout.readline()
    return seen


@contextmanager
def _serve(home: Path, port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    command = [
        sys.executable,
        "-m",
        "groundnote",
        "--home",
        str(home),
        "serve",
        "--port",
        str(port),
    ]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as process:
        try:
            yield process
        finally:
            process.terminate()
            process.wait(timeout=20)


def test_serve_on_a_fresh_home(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    port = free_port()
    env = {**os.environ, "COLUMNS": "200"}
    with _serve(home, port, env) as process:
        printed = _read_until(process, "}\n}", timeout=60)
        base = f"http://127.0.0.1:{port}"
        assert (
            f"{base}/v1" in printed and f"{base}/mcp" in printed and f"{base}/approval" in printed
        )
        config = json.loads(printed[printed.index("{") :])
        stdio = config["mcpServers"]["groundnote"]
        token = stdio["args"][stdio["args"].index("--token") + 1]
        assert config["mcpServers"]["groundnote-http"]["url"] == f"{base}/mcp"
        assert (
            config["mcpServers"]["groundnote-http"]["headers"]["Authorization"] == f"Bearer {token}"
        )

        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(
                    f"{base}/v1/scopes", headers={"Authorization": f"Bearer {token}"}
                )
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "serve did not answer"
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.json()["scopes"] == [
            {"name": "demo", "right": "propose", "approval_mode": "person"}
        ]
    assert (home / "instance.db").exists() and (home / "scopes" / "demo.db").exists()

    with _serve(home, port, env) as second:
        printed = _read_until(second, "shown at the first start", timeout=60)
        assert "gn_" not in printed  # the token is never shown twice


def test_a_bad_config_stops_start_up_naming_the_key(tmp_path: Path) -> None:
    home = tmp_path / "bad"
    home.mkdir()
    (home / "groundnote.json").write_text('{"graph": {"max_dept": 3}}')
    done = subprocess.run(
        [sys.executable, "-m", "groundnote", "--home", str(home), "scope", "list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "graph.max_dept" in done.stderr and "max_depth" in done.stderr
    assert "Traceback" not in done.stderr
