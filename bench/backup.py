"""Benchmark of `groundnote backup` (issue 17): a home of N entities copied while another
process keeps writing at a steady rate.

    .venv/bin/python bench/backup.py                 # 50,000 entities, 50 writes/s
    .venv/bin/python bench/backup.py --n 10000 --rate 20

The home is loaded in bulk with the writer's own `create_entity` (similar-name check off, as
bench/graph.py does). A writer process then creates entities through the registry at `--rate`
per second; the backup runs twice, once with the writer idle (before it starts) and once while
it writes, and prints both times, the ratio, the bytes and how many writes were acknowledged
while it ran (each of them on the home, none lost, none of them waiting for the backup).
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.graph.entities import Author, create_entity  # noqa: E402
from groundnote.graph.trigram import index_for  # noqa: E402
from groundnote.runtime import open_runtime  # noqa: E402
from groundnote.store import backup_home, verify_backup  # noqa: E402


def _writer(home: str, token: str, rate: float, acks: str, stop: str) -> None:
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    create = runtime.registry.get("graph.entity_create")
    with open(acks, "a", encoding="utf-8") as log:
        next_at = time.monotonic()
        while not Path(stop).exists():
            raw = {"scope": "bench", "type": "organisation", "name": uuid.uuid4().hex[:20]}
            runtime.invoke(create, raw, principal=principal, channel="api")
            log.write(f"{time.monotonic()}\n")
            log.flush()
            next_at += 1 / rate
            time.sleep(max(0.0, next_at - time.monotonic()))
    runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--rate", type=float, default=50.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gn-bench-backup-"))
    try:
        home = work / "home"
        rt = open_runtime(home, environ={})
        rt.home.create_scope("bench")
        db = rt.home.scope_db("bench")
        author = Author.of("mcp", "grant:bench", rt.home.clock.instant(), "2026-12-01")
        index = index_for(db)
        start = time.perf_counter()
        for chunk in range(0, args.n, 5000):
            with db.write() as conn:
                for i in range(chunk, min(args.n, chunk + 5000)):
                    create_entity(
                        conn, index, rt.config.graph, "bench", author, type="organisation",
                        name=f"Organisation {i} {uuid.uuid4().hex[:6]}", aliases=[],
                        parent_id=None, reason="generated", similar_check=False,
                    )  # fmt: skip
        print(f"loaded {args.n:,} entities in {time.perf_counter() - start:.1f} s")
        _, token = create_grant(
            rt.home.instance, "w", rights={"bench": Right.PROPOSE}, channels=["api"],
            org="local", now=rt.home.clock.instant(),
        )  # fmt: skip
        rt.close()

        start = time.perf_counter()
        idle = backup_home(home, work / "idle")
        idle_s = time.perf_counter() - start
        size = sum(idle.files.values())

        acks, stop = work / "acks", work / "stop"
        acks.touch()
        writer = multiprocessing.get_context("spawn").Process(
            target=_writer, args=(str(home), token, args.rate, str(acks), str(stop))
        )
        writer.start()
        while len(acks.read_text().splitlines()) < int(args.rate):  # a second of writing
            time.sleep(0.05)
        began = time.monotonic()
        start = time.perf_counter()
        backup_home(home, work / "busy")
        busy_s = time.perf_counter() - start
        ended = time.monotonic()
        time.sleep(1)
        stop.touch()
        writer.join(timeout=60)
        stamps = [float(x) for x in acks.read_text().splitlines()]
        during = sum(began <= t <= ended for t in stamps)
        assert verify_backup(work / "busy") == [] and verify_backup(work / "idle") == []
        print(f"home: {size / 1e6:.1f} MB in {len(idle.files)} files")
        print(f"backup, no writer:          {idle_s:.2f} s ({size / 1e6 / idle_s:.0f} MB/s)")
        print(
            f"backup, writer at {args.rate:.0f}/s:    {busy_s:.2f} s "
            f"(ratio {busy_s / idle_s:.2f}); {during} writes acknowledged while it ran "
            f"({during / busy_s:.0f}/s), {len(stamps)} in all"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
