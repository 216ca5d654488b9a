"""The knowledge index at 10,000 records: cold index time and `record` per call (DESIGN §13).

A generated checkout: 2,000 commits (fast-import), 200 files deleted along the way, 10,000
records citing present files, deleted files (historical), commits, ledger tasks, other records,
pinned file versions and, one in fifty, nothing. Targets: cold index ≤ 10 s; `record` p95 ≤ 5 ms
direct. Prints the handler alone and the registry call (rights, validation, operation log).

    .venv/bin/python -m bench.knowledge [--records 10000] [--commits 2000] [--n 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import peak_rss_mb, print_table, time_calls
from groundnote.auth import Right, create_grant
from groundnote.knowledge.capabilities import RECORD
from groundnote.knowledge.index import refresh
from groundnote.runtime import open_runtime

ROOT = ".ai/repo/knowledge"
_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, env=_ENV, check=True
    )
    return done.stdout.decode()


def _history(repo: Path, commits: int) -> list[str]:
    """`commits` commits, each adding a file; every tenth deletes an older one."""
    out = []
    for i in range(1, commits + 1):
        message = f"commit {i}".encode()
        body = f"content {i}\n".encode()
        out.append(b"commit refs/heads/main\nmark :%d\n" % i)
        out.append(b"committer Bench <bench@example.org> %d +0000\n" % (1_700_000_000 + i))
        out.append(b"data %d\n%s\n" % (len(message), message))
        if i > 1:
            out.append(b"from :%d\n" % (i - 1))
        out.append(b"M 100644 inline src/f%d.txt\ndata %d\n%s\n" % (i, len(body), body))
        if i % 10 == 0:
            out.append(b"D src/f%d.txt\n" % (i - 5))
    _git(repo, "fast-import", "--quiet", stdin=b"".join(out))
    _git(repo, "reset", "-q", "--hard", "main")
    return _git(repo, "rev-list", "main").split()


def _record(n: int, count: int, commits: list[str], rng: random.Random) -> str:
    total = len(commits)
    present = rng.choice([i for i in range(1, 50)])
    refs = [
        f"file:src/f{rng.randrange(1, total // 10) * 10 + present % 4 + 1}.txt",
        f"file:src/f{rng.randrange(1, total // 10) * 10 - 5}.txt",  # deleted: historical
        f"commit:{rng.choice(commits)[:10]}",
        f"task:T-{rng.randrange(500)}",
        f"knowledge:k{rng.randrange(count):05d}",
    ]
    if n % 20 == 0:
        refs.append(f"file:src/f1.txt@{commits[-1][:12]}")
    if n % 50 == 0:
        refs.append("task:none")
    lines = "\n".join(f"    - {r}" for r in refs)
    status = "candidate" if n % 3 else "verified"
    return (
        f"---\nid: k{n:05d}\nclass: convention\nstatus: {status}\nepistemics: observed\n"
        f"date: 2026-0{1 + n % 9}-1{n % 10}\ntitle: Generated assertion {n}\n"
        f"provenance:\n  origin: extracted\n  derived_from:\n{lines}\n"
        f"relations:\n  - type: relates_to\n    target: file:src/f{total}.txt\n---\n"
        f"Body of record {n}.\n"
    )


def _checkout(path: Path, records: int, commits: int) -> list[str]:
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    shas = _history(path, commits)
    rng = random.Random(4)
    for source_class in ("candidates", "curated"):
        (path / ROOT / source_class).mkdir(parents=True)
    for n in range(records):
        source_class = "candidates" if n % 3 else "curated"
        (path / ROOT / source_class / f"k{n:05d}.md").write_text(_record(n, records, shas, rng))
    ledger = path / ".ai/repo/ledger"
    ledger.mkdir(parents=True)
    (ledger / "tasks.jsonl").write_text(
        "".join(f'{{"kind": "task", "id": "T-{i}"}}\n' for i in range(500))
    )
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "records")
    return shas


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=2_000)
    parser.add_argument("--n", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "checkout"
        start = time.perf_counter()
        _checkout(repo, args.records, args.commits)
        generated = time.perf_counter() - start
        runtime = open_runtime(Path(tmp) / "home", environ={})
        try:
            runtime.home.create_scope("bench", repo=str(repo))
            db = runtime.home.scope_db("bench")
            cfg = runtime.config.knowledge
            start = time.perf_counter()
            report = refresh(db, repo, cfg, full=True)
            cold = time.perf_counter() - start
            start = time.perf_counter()
            refresh(db, repo, cfg)
            warm = time.perf_counter() - start
            _, token = create_grant(
                runtime.home.instance,
                "bench",
                rights={"bench": Right.READ},
                channels=["mcp"],
                org="local",
                now=runtime.home.clock.instant(),
            )
            principal = runtime.authenticate(token)
            rng = random.Random(7)
            ids = [f"k{rng.randrange(args.records):05d}" for _ in range(args.n + 20)]
            registry_ids = iter(ids * 2)
            registry = time_calls(
                lambda: runtime.invoke(
                    RECORD,
                    {"id": next(registry_ids), "scope": "bench"},
                    principal=principal,
                    channel="mcp",
                ),
                args.n,
            )
            print_table(
                f"knowledge index: {report.records} records, {report.files} files, "
                f"{report.commits} commits, {report.problems} problems "
                f"(checkout generated in {generated:.1f} s)",
                ["what", "seconds", "target"],
                [["cold index (rebuild)", cold, "≤ 10"], ["refresh, nothing changed", warm, "-"]],
            )
            print_table(
                f"knowledge_base.record, {args.n} calls, random ids (ms)",
                ["transport", "calls/s", "p50", "p95", "target p95"],
                [
                    [
                        "direct (registry: rights, validation, log)",
                        registry.per_second,
                        registry.p50,
                        registry.p95,
                        "≤ 5",
                    ]
                ],
            )
            print(f"\npeak RSS {peak_rss_mb():.0f} MB")
        finally:
            runtime.close()


if __name__ == "__main__":
    main()
