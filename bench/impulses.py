"""Impulses (DESIGN §13): `conceptLink_write` with its audit impulse per second, read-shape p95,
and the expiry sweep over 100,000 expired impulses.

Three paths for the write: the operation alone (`perform`: edge EMA upsert + audit impulse in
one transaction), the resolve dispatcher (`resolve_request`: JSON envelope, auth, payload
validation, operation log), and HTTP through the ASGI app (in-process client). Target: ≥ 1,000
writes per second direct.

    .venv/bin/python -m bench.impulses [--n 3000] [--concepts 200] [--expired 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient
from groundnote.impulses.resolve import resolve_request

from bench.common import print_table, time_calls
from groundnote.auth import Right, create_grant
from groundnote.impulses.models import LinkData
from groundnote.impulses.table import prune_expired_impulses
from groundnote.impulses.writes import WRITE_OPS, Caller, perform
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.http.impulses import add_impulse_routes


def _signatures(runtime: Runtime, caller: Caller, n: int) -> list[str]:
    op = WRITE_OPS["conceptSignatureUpsert_write"]
    return [
        perform(
            runtime.home,
            runtime.config,
            caller,
            op,
            op.model.model_validate({"pointer_type": "bench", "shape": f"s{i}"}),
        ).result.id  # type: ignore[attr-defined]
        for i in range(n)
    ]


def _fill_expired(runtime: Runtime, count: int) -> None:
    rows = [
        (
            f"impulse:exp{i:08d}",
            "{}",
            "relatedConceptsResult",
            "acme",
            "2000-01-01T00:00:00.000Z",
            "2000-01-01T00:01:00.000Z",
        )
        for i in range(count)
    ]
    with runtime.home.instance.write() as conn:
        conn.executemany(
            "INSERT INTO impulse (id, pointer, shape, org_id, created_at, expires_at) "
            "VALUES (?,?,?,?,?,?)",
            rows,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000, help="writes per path")
    parser.add_argument("--concepts", type=int, default=200)
    parser.add_argument("--expired", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(7)

    with tempfile.TemporaryDirectory() as tmp:
        runtime = open_runtime(Path(tmp) / "home", environ={})
        _, token = create_grant(
            runtime.home.instance,
            "bench",
            rights={"*": Right.PROPOSE},
            channels=["api"],
            org="acme",
            now=runtime.home.clock.instant(),
        )
        principal = runtime.authenticate(token)
        caller = Caller(org="acme", actor="grant:bench")
        ids = _signatures(runtime, caller, args.concepts)
        op = WRITE_OPS["conceptLink_write"]

        def pair() -> dict[str, object]:
            a, b = rng.sample(ids, 2)
            return {
                "from_concept_id": a,
                "to_concept_id": b,
                "edge_type": "co_occurs",
                "weight": round(rng.random(), 3),
            }

        def direct() -> None:
            perform(runtime.home, runtime.config, caller, op, LinkData.model_validate(pair()))

        def dispatcher() -> None:
            body = json.dumps({"pointer": {"type": "conceptLink_write", "linkData": pair()}})
            answer = resolve_request(runtime.home, runtime.config, principal, body.encode())
            assert answer.status == 200, answer.body

        app = FastAPI()
        add_impulse_routes(app, runtime)
        client = TestClient(app)
        headers = {"Authorization": f"Bearer {token}"}

        def http() -> None:
            response = client.post(
                "/v2/impulses/resolve",
                json={"pointer": {"type": "conceptLink_write", "linkData": pair()}},
                headers=headers,
            )
            assert response.status_code == 200, response.text

        def read() -> None:
            body = json.dumps(
                {"pointer": {"type": "relatedConcepts", "concept_id": rng.choice(ids)}}
            )
            assert (
                resolve_request(runtime.home, runtime.config, principal, body.encode()).status
                == 200
            )

        timings = [
            ("conceptLink_write + audit, direct (perform)", time_calls(direct, args.n)),
            ("conceptLink_write + audit, resolve dispatcher", time_calls(dispatcher, args.n)),
            ("conceptLink_write + audit, HTTP (ASGI in-process)", time_calls(http, args.n // 2)),
            ("relatedConcepts read, resolve dispatcher", time_calls(read, args.n)),
        ]
        with runtime.home.instance.read() as conn:
            edges = conn.execute("SELECT count(*) FROM concept_edge").fetchone()[0]
        print_table(
            f"impulses: {args.concepts} signature concepts, {edges} edges at the end "
            "(target: ≥ 1,000 writes/s direct)",
            ["path", "per second", "p50 ms", "p95 ms"],
            [(name, t.per_second, t.p50, t.p95) for name, t in timings],
        )

        _fill_expired(runtime, args.expired)
        start = time.perf_counter()
        removed = prune_expired_impulses(runtime.home)
        seconds = time.perf_counter() - start
        print_table(
            "expiry sweep",
            ["expired impulses", "removed", "seconds"],
            [(args.expired, removed, seconds)],
        )
        client.close()
        runtime.close()


if __name__ == "__main__":
    main()
