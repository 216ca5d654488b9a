"""A writer killed with SIGKILL mid-import leaves an intact file with every acknowledged write."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from groundnote.runtime import open_runtime

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from groundnote.auth import LOCAL_OPERATOR
    from groundnote.runtime import open_runtime

    runtime = open_runtime(Path(sys.argv[1]), environ={})
    store = runtime.registry.get("core.store_source")
    for i in range(100_000):
        source = {"kind": "mail", "id": f"mail:<m{i}@crash.example>", "subject": f"Nachricht {i}",
                  "body": "Lieferung verzögert sich um zwei Wochen. " * 20}
        runtime.invoke(store, {"scope": "crash", "source": source}, principal=LOCAL_OPERATOR, channel="cli")
        print(i, flush=True)  # acknowledged: the transaction has committed
    """
)


def test_sigkill_mid_import_loses_no_acknowledged_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runtime = open_runtime(home, environ={})
    runtime.home.create_scope("crash")
    runtime.close()
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home)], stdout=subprocess.PIPE, text=True
    ) as writer:
        assert writer.stdout is not None
        acknowledged = []
        for line in writer.stdout:
            acknowledged.append(int(line))
            if len(acknowledged) == 300:
                os.kill(writer.pid, signal.SIGKILL)
                break
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    conn = sqlite3.connect(home / "scopes" / "crash.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in conn.execute("SELECT id FROM source")}
    finally:
        conn.close()
    assert {f"mail:<m{i}@crash.example>" for i in acknowledged} <= stored
