"""Benchmark of `groundnote backup` (issue 17): a home copied while another process keeps
writing at a steady rate.

    .venv/bin/python bench/backup.py                 # 50,000 entities, 50 writes/s
    .venv/bin/python bench/backup.py --n 10000 --rate 20
    .venv/bin/python bench/backup.py --size-gb 1     # a 1 GB home of mails and attachments

The home is loaded in bulk with the writer's own functions: `--n` entities through
`create_entity` (similar-name check off, as bench/graph.py does) and, with `--size-gb`, mails
through what `store_source` runs (`source_row`, `attachment_rows`, `content_sha256`,
`insert_source` with its full-text indexing) until the home holds that many bytes. The home
runs with `search.semantic` off unless `--embed`: the local model embeds a few mails a second
on this machine (an hour for 1 GB; bench/semantic.py measures it), and the vectors would add
under 1 % to the bytes copied. With `--embed` they are written as a mail import does
(`embed_new`) and `check` verifies them too. A mail has
a body of a few to a few dozen paragraphs and zero to three attachments with extracted text
(PDF-like, up to ~150 KB each); the words follow a Zipf law over a vocabulary of 40,000, so
the full-text index grows as it would on real mail.

The backup runs what `groundnote backup DIR` runs (`backup_home`), twice: once with
the writer idle (before it starts) and once while a writer process creates entities through
the registry at `--rate` per second. Printed: both times, the ratio, the bytes, the writes
acknowledged while it ran; then checked: every acknowledged write is in the home, every one
acknowledged before the backup began is in the backup, and `groundnote restore` of the busy
backup (which runs `check` on the restored home) passes, as does `groundnote check` there.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.config import CONFIG_FILE  # noqa: E402
from groundnote.core.sources import (  # noqa: E402
    AttachmentIn,
    MailIn,
    attachment_rows,
    content_sha256,
    insert_source,
    source_row,
)
from groundnote.core.vectors import embed_new  # noqa: E402
from groundnote.graph.entities import Author, create_entity  # noqa: E402
from groundnote.graph.trigram import index_for  # noqa: E402
from groundnote.runtime import open_runtime  # noqa: E402
from groundnote.store import backup_home  # noqa: E402
from groundnote.store.sql import Connection  # noqa: E402

CLI = [sys.executable, "-m", "groundnote"]
SCOPE = "bench"


def _writer(home: str, token: str, rate: float, acks: str, stop: str) -> None:
    runtime = open_runtime(Path(home), environ={})
    principal = runtime.authenticate(token)
    create = runtime.registry.get("graph.entity_create")
    with open(acks, "a", encoding="utf-8") as log:
        next_at = time.monotonic()
        while not Path(stop).exists():
            raw = {"scope": SCOPE, "type": "organisation", "name": uuid.uuid4().hex[:20]}
            out = runtime.invoke(create, raw, principal=principal, channel="api")
            log.write(f"{time.monotonic()} {out.model_dump()['entity']['id']}\n")
            log.flush()
            next_at += 1 / rate
            time.sleep(max(0.0, next_at - time.monotonic()))
    runtime.close()


class Prose:
    """Paragraphs of made-up words whose frequencies follow a Zipf law, as words in mail do."""

    def __init__(self, rng: random.Random, vocabulary: int = 40_000, paragraphs: int = 6000):
        syllables = ["ver", "an", "ge", "lie", "fer", "ung", "te", "ra", "min", "preis", "ab",
                     "schluss", "kon", "trakt", "be", "stel", "lung", "rech", "nung", "mo", "na",
                     "tag", "wo", "che", "ter", "lin", "gu", "ta", "ko", "sten", "auf", "trag"]  # fmt: skip
        words: set[str] = set()
        while len(words) < vocabulary:
            words.add("".join(rng.choices(syllables, k=rng.randint(1, 4))))
        ranked = sorted(words)
        rng.shuffle(ranked)
        weights = [1 / (rank + 1) for rank in range(len(ranked))]
        self.rng = rng
        self.paragraphs = []
        for _ in range(paragraphs):
            text = " ".join(rng.choices(ranked, weights, k=rng.randint(40, 120)))
            self.paragraphs.append(text[0].upper() + text[1:] + ".")

    def text(self, paragraphs: int) -> str:
        return "\n\n".join(self.rng.choices(self.paragraphs, k=paragraphs))


def _mail(prose: Prose, i: int) -> MailIn:
    rng = prose.rng
    attachments = [
        AttachmentIn(
            filename=f"Anlage-{i}-{n}.pdf",
            media_type="application/pdf",
            size=rng.randint(50_000, 2_000_000),
            sha256=uuid.uuid4().hex * 2,
            text=f"Rechnung Nr. {i}-{n}\n\n" + prose.text(rng.randint(20, 250)),
        )
        for n in range(rng.choice([0, 0, 1, 1, 2, 3]))
    ]
    day = 1 + i % 28
    return MailIn(
        id=f"mail:<{i}.{uuid.uuid4().hex[:12]}@lieferant.example>",
        subject=f"Angebot {i}: " + prose.text(1)[:60],
        sender=f"einkauf{i % 97}@lieferant.example",
        to=["team@firma.example"],
        cc=[f"person{i % 13}@firma.example"] if i % 3 == 0 else [],
        sent_at=f"2026-11-{day:02d}T09:{i % 60:02d}:00.000Z",
        body=f"Guten Tag,\n\nunser Zeichen {i}.\n\n" + prose.text(rng.randint(3, 60)),
        attachments=attachments,
    )


def _store_mail(conn: Connection, mail: MailIn, at: str) -> None:
    """What `store_source` writes for a new mail (its duplicate check left out: ids are new)."""
    row = source_row(mail, "Europe/Berlin", "2026-12-01")
    attachments = attachment_rows(mail.attachments)
    row.update(content_sha256=content_sha256(row, attachments), stored_at=at, stored_by="agent")
    insert_source(conn, row, attachments)


def _load(home: Path, n: int, size_gb: float | None, embed: bool) -> None:
    home.mkdir(parents=True)
    if not embed:
        (home / CONFIG_FILE).write_text(json.dumps({"search": {"semantic": "off"}}) + "\n")
    rt = open_runtime(home, environ={})
    rt.home.create_scope(SCOPE)
    db = rt.home.scope_db(SCOPE)
    author = Author.of("mcp", "grant:bench", rt.home.clock.instant(), "2026-12-01")
    index = index_for(db)
    start = time.perf_counter()
    for chunk in range(0, n, 5000):
        with db.write() as conn:
            for i in range(chunk, min(n, chunk + 5000)):
                create_entity(
                    conn, index, rt.config.graph, SCOPE, author, type="organisation",
                    name=f"Organisation {i} {uuid.uuid4().hex[:6]}", aliases=[],
                    parent_id=None, reason="generated", similar_check=False,
                )  # fmt: skip
    print(f"loaded {n:,} entities in {time.perf_counter() - start:.1f} s")
    if size_gb is not None:
        start = time.perf_counter()
        prose = Prose(random.Random(17))
        mails = attachments = text_bytes = 0
        while db.size_bytes() < size_gb * 1e9:
            with db.write() as conn:
                for _ in range(200):
                    mail = _mail(prose, mails)
                    _store_mail(conn, mail, rt.home.clock.instant())
                    mails += 1
                    attachments += len(mail.attachments)
                    text_bytes += len(mail.body.encode()) + sum(
                        len((a.text or "").encode()) for a in mail.attachments
                    )
        print(
            f"stored {mails:,} mails with {attachments:,} attachments "
            f"({text_bytes / 1e6:.0f} MB of text) in {time.perf_counter() - start:.1f} s"
        )
        if embed:
            start = time.perf_counter()
            embedded = embed_new(db, rt.config.search)  # as a mail import does after its writes
            print(f"embedded {embedded:,} texts in {time.perf_counter() - start:.1f} s")
    rt.close()


def _cli(home: Path, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [*CLI, "--home", str(home), *args], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"groundnote {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return seconds, done.stdout


def _entity_ids(scope_file: Path) -> set[str]:
    with sqlite3.connect(f"file:{scope_file}?mode=ro", uri=True) as conn:
        ids = {r[0] for r in conn.execute("SELECT id FROM entity")}
    conn.close()
    return ids


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=None, help="entities (default 50,000; 5,000 "
                        "with --size-gb)")  # fmt: skip
    parser.add_argument("--size-gb", type=float, default=None)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--embed", action="store_true", help="search.semantic on, every text "
                        "embedded before the backups (slow: the local model on every mail)")  # fmt: skip
    parser.add_argument("--dir", type=Path, default=None, help="where to work (default: /tmp)")
    args = parser.parse_args()
    n = args.n if args.n is not None else (5_000 if args.size_gb else 50_000)
    work = Path(tempfile.mkdtemp(prefix="gn-bench-backup-", dir=args.dir))
    env_home = work / "home"
    try:
        _load(env_home, n, args.size_gb, args.embed)
        rt = open_runtime(env_home, environ={})
        _, token = create_grant(
            rt.home.instance, "w", rights={SCOPE: Right.PROPOSE}, channels=["api"],
            org="local", now=rt.home.clock.instant(),
        )  # fmt: skip
        rt.close()
        os.sync()  # the idle copy should not pay for writing back the load

        start = time.perf_counter()
        idle = backup_home(env_home, work / "idle")
        idle_s = time.perf_counter() - start
        size = sum(idle.files.values())
        shutil.rmtree(work / "idle")
        os.sync()

        acks, stop = work / "acks", work / "stop"
        acks.touch()
        writer = multiprocessing.get_context("spawn").Process(
            target=_writer, args=(str(env_home), token, args.rate, str(acks), str(stop))
        )
        writer.start()
        while len(acks.read_text().splitlines()) < int(args.rate):  # a second of writing
            time.sleep(0.05)
        began = time.monotonic()
        start = time.perf_counter()
        busy = backup_home(env_home, work / "busy")
        busy_s = time.perf_counter() - start
        ended = time.monotonic()
        time.sleep(1)
        stop.touch()
        writer.join(timeout=60)

        stamps = [(float(t), eid) for t, eid in (x.split() for x in acks.read_text().splitlines())]
        during = sum(began <= t <= ended for t, _ in stamps)
        in_home = _entity_ids(env_home / "scopes" / f"{SCOPE}.db")
        in_backup = _entity_ids(work / "busy" / "scopes" / f"{SCOPE}.db")
        lost = [eid for _, eid in stamps if eid not in in_home]
        missed = [eid for t, eid in stamps if t < began and eid not in in_backup]
        restore_s, restored = _cli(work / "restored", "restore", str(work / "busy"))
        check_s, checked = _cli(work / "restored", "check")

        print(f"home: {size / 1e6:,.1f} MB in {len(idle.files)} files; the busy copy "
              f"{sum(busy.files.values()) / 1e6:,.1f} MB")  # fmt: skip
        print(f"backup, no writer:          {idle_s:.2f} s ({size / 1e6 / idle_s:.0f} MB/s)")
        print(
            f"backup, writer at {args.rate:.0f}/s:    {busy_s:.2f} s "
            f"(ratio {busy_s / idle_s:.2f}); {during} writes acknowledged while it ran "
            f"({during / busy_s:.0f}/s), {len(stamps)} in all"
        )
        print(
            f"acknowledged writes missing from the home: {len(lost)}; acknowledged before the "
            f"backup began and missing from it: {len(missed)}"
        )
        print(f"restore (with its check): {restore_s:.1f} s; {restored.strip().splitlines()[-1]}")
        print(f"check of the restored home: {check_s:.1f} s; "
              f"{' / '.join(checked.strip().splitlines())}")  # fmt: skip
        if lost or missed:
            raise SystemExit("acknowledged writes are missing")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
