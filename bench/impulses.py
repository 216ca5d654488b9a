"""Impulses (DESIGN §13): `conceptLink_write` with its audit impulse per second, read-shape p95,
and the expiry sweep over 100,000 expired impulses.

Four paths for the write: the operation alone (`perform`: edge EMA upsert + audit impulse +
log row in one transaction, on a context built by hand), the shape's capability through the
registry (credentials, channel, validation, the right in the organisation), the resolve
endpoint's envelope around that (`resolve_body`), and HTTP through the ASGI app (in-process
client). Target: ≥ 1,000 writes per second direct.

    .venv/bin/python -m bench.impulses [--n 3000] [--concepts 200] [--expired 100000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from bench.common import print_table, time_calls
from groundnote.auth import Principal, Right, create_grant
from groundnote.capabilities import Context
from groundnote.impulses.models import LinkData
from groundnote.impulses.table import prune_expired_impulses
from groundnote.impulses.writes import WRITE_OPS, perform
from groundnote.runtime import Runtime, open_runtime
from groundnote.surfaces.http.impulses import OPERATION, add_impulse_routes, resolve_body


def _context(runtime: Runtime, principal: Principal | None, shape: str) -> Context:
    """What the registry hands a shape's handler, built by hand: the operation alone."""
    cap = runtime.registry.by_shape(shape)
    assert cap is not None
    return Context(
        home=runtime.home,
        config=runtime.config,
        principal=principal,
        channel="api",
        capability=cap,
        input_sha256="0" * 64,
        request_id="bench",
        logged_as=OPERATION,
    )


def _signatures(runtime: Runtime, principal: Principal | None, n: int) -> list[str]:
    op = WRITE_OPS["conceptSignatureUpsert_write"]
    found: list[str] = []
    for i in range(n):
        payload = op.model.model_validate({"pointer_type": "bench", "shape": f"s{i}"})
        out: Any = perform(_context(runtime, principal, op.shape), op, payload).result
        found.append(out.id)
    return found


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
        ids = _signatures(runtime, principal, args.concepts)
        op = WRITE_OPS["conceptLink_write"]
        shape = runtime.registry.by_shape(op.shape)
        assert shape is not None

        def pair() -> dict[str, object]:
            a, b = rng.sample(ids, 2)
            return {
                "from_concept_id": a,
                "to_concept_id": b,
                "edge_type": "co_occurs",
                "weight": round(rng.random(), 3),
            }

        def direct() -> None:
            perform(_context(runtime, principal, op.shape), op, LinkData.model_validate(pair()))

        def registry() -> None:
            runtime.invoke(shape, {"linkData": pair()}, principal=principal, channel="api")

        def dispatcher() -> None:
            body = json.dumps({"pointer": {"type": "conceptLink_write", "linkData": pair()}})
            status, answer = resolve_body(runtime, principal, body.encode(), None)
            assert status == 200, answer

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
            assert resolve_body(runtime, principal, body.encode(), None)[0] == 200

        timings = [
            ("conceptLink_write + audit, direct (perform)", time_calls(direct, args.n)),
            ("conceptLink_write + audit, the registry", time_calls(registry, args.n)),
            ("conceptLink_write + audit, resolve envelope", time_calls(dispatcher, args.n)),
            ("conceptLink_write + audit, HTTP (ASGI in-process)", time_calls(http, args.n // 2)),
            ("relatedConcepts read, resolve envelope", time_calls(read, args.n)),
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
