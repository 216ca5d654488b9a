"""A real git checkout in tmp_path, bound to the scope `kb`, and a reader's `kcall`."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundnote.auth import Principal, Right
from groundnote.runtime import Runtime
from tests.conftest import make_principal

ROOT = ".ai/repo/knowledge"
_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=_ENV, check=True
    )
    return done.stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def write(repo: Path, path: str, text: str) -> Path:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    return target


def record_text(record_id: str, body: str = "Body.\n", **fields: Any) -> str:
    front: dict[str, Any] = {
        "id": record_id,
        "class": "convention",
        "status": "candidate",
        "epistemics": "decided",
        "date": "2026-09-12",
        "title": f"Assertion {record_id}",
    }
    front.update(fields)
    return "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + body


def write_record(
    repo: Path, record_id: str, source_class: str = "candidates", **fields: Any
) -> str:
    path = f"{ROOT}/{source_class}/{record_id}.md"
    write(repo, path, record_text(record_id, **fields))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "checkout"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


@pytest.fixture
def kb(runtime: Runtime, repo: Path) -> str:
    runtime.home.create_scope("kb", repo=str(repo))
    return "kb"


@pytest.fixture
def reader(runtime: Runtime, kb: str) -> Principal:
    return make_principal(runtime, "reader", {kb: Right.READ}, ["mcp", "api", "cli"])[0]


KCall = Callable[..., dict[str, Any]]


@pytest.fixture
def kcall(runtime: Runtime, reader: Principal) -> KCall:
    def invoke(name: str, channel: str = "mcp", **raw: Any) -> dict[str, Any]:
        cap = runtime.registry.get(f"knowledge_base.{name}")
        out = runtime.invoke(cap, raw, principal=reader, channel=channel)
        return out.model_dump(mode="json")

    return invoke
