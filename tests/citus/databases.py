"""Per-test databases on a Citus cluster (GROUNDNOTE_TEST_DATABASE_URL at a coordinator).

The PostgreSQL runs copy a template database; Citus cannot: it propagates CREATE DATABASE
only from template1, and a copy of a coordinator's database would carry shard metadata that
points at worker databases that do not exist. So each test's database is made across the
cluster (`store.citus.prepare_database`: the extension on every node, the workers registered),
then given what the template holds elsewhere (the migrated instance schema and the migrated,
unregistered schema of scope `sales`), ahead of time on a thread of its own; used ones are
dropped node by node on another.
"""

from __future__ import annotations

import contextlib
import queue
import tempfile
import threading
import uuid
from pathlib import Path

from groundnote.runtime import open_runtime
from groundnote.store import citus
from groundnote.store.postgres import close_pools


def is_citus(url: str) -> bool:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        return citus.has_citus(conn)


class CitusDatabases:
    """The conftest's `_Databases` interface (fresh, drop, close) on a Citus cluster."""

    AHEAD = 2

    def __init__(self, server: str) -> None:
        self.server = server
        self._ready: queue.Queue[str] = queue.Queue(maxsize=self.AHEAD)
        self._dropping: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._make_ahead, name="make citus dbs", daemon=True),
            threading.Thread(target=self._drop_all, name="drop citus dbs"),
        ]
        for thread in self._threads:
            thread.start()

    def _make_one(self) -> str:
        url = citus.prepare_database(self.server, f"gn_c_{uuid.uuid4().hex[:16]}")
        with tempfile.TemporaryDirectory() as folder:
            made = open_runtime(Path(folder), environ={}, database_url=url)
            made.home.create_scope("sales")
            with made.home.instance.write() as conn:
                conn.execute("DELETE FROM scope")
            made.close()
        close_pools(url)
        return url

    def _make_ahead(self) -> None:
        while not self._stop.is_set():
            self._ready.put(self._make_one())

    def fresh(self) -> str:
        return self._ready.get(timeout=120)

    def drop(self, url: str) -> None:
        close_pools(url)
        self._dropping.put(url.rsplit("/", 1)[1])

    def _drop_all(self) -> None:
        while (name := self._dropping.get()) is not None:
            citus.drop_database(self.server, name)

    def close(self) -> None:
        self._stop.set()
        while self._threads[0].is_alive():
            with contextlib.suppress(queue.Empty):
                self.drop(self._ready.get(timeout=0.1))
        while not self._ready.empty():
            self.drop(self._ready.get())
        self._dropping.put(None)
        self._threads[1].join()
