"""What three app servers on one Citus cluster share through the coordinator's instance schema
(issue 16, item 2): a person's approval session made on one server is valid on the others (and
ends on all of them at logout), and the impulse expiry sweep runs once per interval across
the servers, not once per server."""

from __future__ import annotations

import itertools
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from groundnote.auth import Right, add_person, create_grant, issue_login_link
from groundnote.domain.clock import SystemClock
from groundnote.impulses.session import Session
from groundnote.impulses.table import insert_impulse
from groundnote.runtime import Runtime
from tests.citus.test_app_servers import serve
from tests.structure.helpers import csrf_of

pytestmark = [pytest.mark.citus, pytest.mark.slow, pytest.mark.timeout(600)]

SERVERS = 3
INTERVAL = 1  # impulses.prune_interval_seconds, the smallest allowed
WATCHED = 8.0  # seconds the sweep row is watched while every server runs


def _status(runtime: Runtime, scope: str, entity_id: str) -> str:
    with runtime.home.scope_db(scope).read() as conn:
        row = conn.execute("SELECT status FROM entity_current WHERE id = ?", (entity_id,))
        return str(row.fetchone()[0])


def test_an_approval_session_is_valid_on_every_server(runtime: Runtime, home_path: Path) -> None:
    runtime.home.create_scope("north")  # approval by a person
    add_person(
        runtime.home.instance,
        "ruth",
        email="ruth@example.org",
        org="local",
        now=runtime.home.clock.instant(),
    )
    _, agent = create_grant(
        runtime.home.instance,
        "agent",
        rights={"north": Right.PROPOSE},
        channels=["api"],
        org="local",
        now=runtime.home.clock.instant(),
    )
    # the servers run on the system clock: a link from the test's fixed clock has expired
    link = issue_login_link(runtime.home.instance, "ruth", SystemClock())
    with ExitStack() as stack:
        one, two, three = (stack.enter_context(serve(home_path)) for _ in range(SERVERS))
        proposed = []
        for base, name in ((one, "Vertrieb Nord"), (two, "Vertrieb Süd")):
            answer = httpx.post(
                f"{base}/v1/entities",
                json={"scope": "north", "type": "organisation", "name": name},
                headers={"Authorization": f"Bearer {agent}"},
                timeout=60,
            )
            assert answer.status_code == 200, answer.text
            proposed.append(answer.json()["entity"]["id"])
        assert [_status(runtime, "north", e) for e in proposed] == ["unconfirmed"] * 2

        # one browser (one cookie jar; cookies are per host, not per port) over three servers
        with httpx.Client(timeout=60, follow_redirects=True) as browser:
            landing = browser.get(f"{one}/approval/login?token={link}")
            assert landing.status_code == 200, landing.text
            assert browser.cookies, "the login set no session cookie"
            page = browser.get(f"{two}/approval/structure?scope=north")
            assert page.status_code == 200, page.text
            assert "Vertrieb Nord" in page.text and "Vertrieb S" in page.text
            csrf = csrf_of(page.text)

            # a form decision on server 3, a JSON decision on server 2, same session
            form = browser.post(
                f"{three}/approval/act/structure.review",
                data={"csrf": csrf, "target": f"entity/{proposed[0]}@1", "verdict": "confirm"},
                follow_redirects=False,
            )
            assert form.status_code == 303, form.text
            review = browser.post(
                f"{two}/v1/reviews",
                json={"target": f"entity/{proposed[1]}@1", "verdict": "confirm"},
                headers={"X-CSRF-Token": csrf},
            )
            assert review.status_code == 200, review.text
            assert [_status(runtime, "north", e) for e in proposed] == ["active"] * 2

            # logging out on server 1 ends the session on the others too
            cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
            still = httpx.get(f"{three}/approval", headers={"Cookie": cookie}, timeout=60)
            assert still.status_code == 200, still.text
            out = browser.post(
                f"{one}/approval/logout", data={"csrf": csrf}, follow_redirects=False
            )
            assert out.status_code == 303, out.text
        for base in (two, three):
            after = httpx.get(f"{base}/approval", headers={"Cookie": cookie}, timeout=60)
            assert after.status_code == 401, (base, after.status_code)


def _moment(instant: str) -> datetime:
    return datetime.fromisoformat(instant.replace("Z", "+00:00"))


def test_the_impulse_sweep_runs_once_per_interval_across_the_servers(
    runtime: Runtime, home_path: Path
) -> None:
    with runtime.home.instance.write() as conn:
        s = Session(conn, "acme", runtime.home.clock.instant(), runtime.config.impulses)
        for expires_at in ("2020-01-01T00:00:00.000Z", "2020-06-01T00:00:00.000Z", None):
            insert_impulse(
                s, shape="relatedConceptsResult", pointer={"q": 1}, expires_at=expires_at
            )
        conn.execute("UPDATE impulse_sweep SET last_at = '2020-01-01T00:00:00.000Z', runs = 0")

    def turn() -> tuple[str, int]:
        with runtime.home.instance.read() as conn:
            row = conn.execute("SELECT last_at, runs FROM impulse_sweep").fetchone()
        return str(row[0]), int(row[1])

    every = {"GROUNDNOTE_IMPULSES__PRUNE_INTERVAL_SECONDS": str(INTERVAL)}
    seen: list[tuple[str, int]] = []
    with ExitStack() as stack:
        for _ in range(SERVERS):
            stack.enter_context(serve(home_path, every))
        end = time.monotonic() + WATCHED
        while time.monotonic() < end:
            if not seen or turn() != seen[-1]:
                seen.append(turn())
            time.sleep(0.1)
        seen.append(turn())
    with runtime.home.instance.read() as conn:
        left = [r[0] for r in conn.execute("SELECT expires_at FROM impulse")]
    assert left == [None]  # the expired ones were swept, the persistent one stays

    swept = [(at, runs) for at, runs in seen if runs > 0]
    assert swept[-1][1] - swept[0][1] >= 3, seen  # it kept sweeping while the servers ran
    # k sweeps between two looks began at least k intervals apart: three servers each
    # sweeping would have put three within every interval
    for (at_a, runs_a), (at_b, runs_b) in itertools.pairwise(swept):
        assert (_moment(at_b) - _moment(at_a)).total_seconds() >= (runs_b - runs_a) * INTERVAL
    watched = (_moment(swept[-1][0]) - _moment(swept[0][0])).total_seconds()
    assert swept[-1][1] - swept[0][1] <= watched / INTERVAL, seen
