"""The first start as a new user meets it: `scripts/serve` on a fresh `git clone`, timed until
the server answers, then a second start, and — the baseline, in the same run — a start that
reinstalls as `scripts/serve` did before it kept `.venv/.installed` (the stamp removed).

Each start is timed from the process start to the banner and to the first answer of
`/openapi.json` (a working server). The first start's time is mostly pip: with pip's cache
warm it downloads nothing, on a new machine it also downloads.

    .venv/bin/python -m bench.startup [--repo PATH] [--branch NAME] [--demo]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import print_table

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(clone: Path, extra: list[str]) -> tuple[float, float]:
    """(seconds to the banner, seconds to the first answer) of one `scripts/serve`."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("GROUNDNOTE_HOME", "VIRTUAL_ENV")}
    began = time.monotonic()
    process = subprocess.Popen(
        [str(clone / "scripts" / "serve"), "--port", str(port), *extra],
        cwd=clone,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        seen = ""
        while "MCP endpoint" not in seen:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                raise SystemExit(f"scripts/serve stopped:\n{seen}")
            seen += line
        banner = time.monotonic() - began
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/openapi.json").status_code == 200:
                    return banner, time.monotonic() - began
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone")
    parser.add_argument("--branch", help="the branch to clone (default: the one checked out)")
    parser.add_argument("--demo", action="store_true", help="start with --demo")
    args = parser.parse_args()
    branch = (
        args.branch
        or subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"],
            cwd=args.repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    extra = ["--demo"] if args.demo else []
    with tempfile.TemporaryDirectory(prefix="groundnote-startup-") as tmp:
        clone = Path(tmp) / "groundnote"
        began = time.monotonic()
        subprocess.run(
            ["git", "clone", "--quiet", "--branch", branch, str(args.repo), str(clone)],
            check=True,
        )
        cloned = time.monotonic() - began
        first = start(clone, extra)
        second = start(clone, extra)
        (clone / ".venv" / ".installed").unlink()
        reinstall = start(clone, extra)
    rows = [
        ("git clone", "", f"{cloned:.1f}"),
        ("first start (creates .venv, installs)", f"{first[0]:.1f}", f"{first[1]:.1f}"),
        ("second start (nothing changed)", f"{second[0]:.1f}", f"{second[1]:.1f}"),
        ("baseline: a start that reinstalls", f"{reinstall[0]:.1f}", f"{reinstall[1]:.1f}"),
    ]
    print_table(
        f"scripts/serve on a fresh clone of {branch} (seconds)",
        ["start", "to banner", "to working server"],
        rows,
    )
    print(f"\nsecond start / reinstalling start: {second[1] / reinstall[1]:.2f}")


if __name__ == "__main__":
    main()
