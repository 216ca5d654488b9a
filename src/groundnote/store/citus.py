"""Groundnote on a Citus cluster (DESIGN §4): the same PostgreSQL backend, pointed at a
coordinator. Each scope's schema is a distributed schema (schema-based sharding), so all of a
scope's tables live together on one worker and every transaction and join of a scope runs on
that one node; the instance schema `groundnote` (grants, persons, sessions, the scope registry,
the org-wide impulses) stays as ordinary tables on the coordinator, where its queries already
run on one node.

The driver is imported only by the functions that connect: a SQLite home never loads it.

Nothing here is needed on a plain PostgreSQL server: every function first asks whether the
database has the `citus` extension and does nothing otherwise.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from groundnote.store.schemas import INSTANCE_SCHEMA

__all__ = [
    "Placement",
    "configure_session",
    "distribute_on_create",
    "drop_database",
    "has_citus",
    "on_citus",
    "pin_search_path",
    "placement_lines",
    "placements",
    "prepare_database",
    "run_joined",
    "run_script",
    "statements",
    "with_database",
]

# One statement, so a plain PostgreSQL server pays one round trip per new pooled connection
# and no more. Citus refuses CREATE TRIGGER on a distributed table unless this is on; it is
# safe here because each trigger reads only its own schema, which lives on one node.
# citus.propagate_set_commands: a write's `SET LOCAL lock_timeout` must reach the worker that
# holds the scope, where the gate row's lock is waited for; without it a writer behind a held
# gate row waits for as long as the holder holds it instead of answering busy.
_SESSION = (
    "SELECT set_config('citus.enable_unsafe_triggers', 'on', false), "
    "set_config('citus.propagate_set_commands', 'local', false) "
    "FROM pg_extension WHERE extname = 'citus'"
)


class _Executes(Protocol):
    def execute(self, sql: str, /) -> Any: ...


def has_citus(conn: _Executes) -> bool:
    """Whether the connected database is a Citus coordinator (the extension is created)."""
    return conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is not None


def run_script(conn: _Executes, script: str) -> None:
    """Run a migration script: in one call on PostgreSQL; statement by statement on Citus,
    which forwards a DDL command's whole query string to the worker as one prepared
    statement, and a worker refuses several commands in one ("cannot insert multiple
    commands into a prepared statement")."""
    if not has_citus(conn):
        conn.execute(script)
        return
    for statement in statements(script):
        conn.execute(statement)
    pin_search_path(conn)


def pin_search_path(conn: _Executes) -> None:
    """Give every function of the current schema its own search_path. A trigger on a
    distributed schema's table runs on the worker, in a session whose search_path does not
    name the scope's schema, so the unqualified tables its body reads (`meta`, …) would not
    be found there; pinned, they resolve to the schema's tables on that worker."""
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    functions = conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p "
        "WHERE p.pronamespace = current_schema()::regnamespace AND p.proconfig IS NULL "
        "AND p.prokind = 'f' ORDER BY 1"
    ).fetchall()
    for (function,) in functions:
        conn.execute(f'ALTER FUNCTION {function} SET search_path = "{schema}", public')


_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def statements(script: str) -> Iterator[str]:
    """The statements of a PostgreSQL script, split at `;` outside quotes, comments and
    `$tag$` bodies (each without its `;`; empty ones and bare comments left out)."""
    start = i = 0
    n = len(script)
    while i < n:
        c = script[i]
        if c in "'\"":
            end = script.find(c, i + 1)
            i = n if end < 0 else end + 1
        elif script.startswith("--", i):
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif script.startswith("/*", i):
            end = script.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == "$" and (tag := _DOLLAR.match(script, i)):
            close = script.find(tag.group(0), tag.end())
            i = n if close < 0 else close + len(tag.group(0))
        elif c == ";":
            yield from _kept(script[start:i])
            start = i = i + 1
        else:
            i += 1
    yield from _kept(script[start:])


def _kept(statement: str) -> Iterator[str]:
    code = "\n".join(line for line in statement.splitlines() if not line.strip().startswith("--"))
    if code.strip():
        yield statement.strip()


def run_joined(conn: _Executes, statements: list[str]) -> None:
    """Run `statements` in one round trip, joined; on Citus one by one: a SET LOCAL that Citus
    propagates to the worker fails there when it arrives inside a multi-statement string."""
    if on_citus(conn):
        for statement in statements:
            conn.execute(statement)
    else:
        conn.execute("; ".join(statements))


_KNOWN: dict[tuple[str, str, str], bool] = {}


def on_citus(conn: _Executes) -> bool:
    """`has_citus`, asked once per process and database (a write asks on every begin)."""
    raw: Any = getattr(conn, "raw", conn)
    key = (raw.info.host, str(raw.info.port), raw.info.dbname)
    known = _KNOWN.get(key)
    if known is None:
        known = _KNOWN[key] = has_citus(conn)
    return known


def configure_session(conn: _Executes) -> None:
    """Prepare a new connection for Groundnote's migrations on Citus (a no-op elsewhere)."""
    conn.execute(_SESSION)


def distribute_on_create(conn: _Executes, schema: str) -> None:
    """Called inside the transaction that creates `schema`, before its CREATE SCHEMA: on Citus
    a scope's schema is made a distributed schema, so it and every table created in it later
    (the migrations') are placed together on one worker. The instance schema stays local."""
    if schema == INSTANCE_SCHEMA or not has_citus(conn):
        return
    conn.execute("SET LOCAL citus.enable_schema_based_sharding = on")


@dataclass(frozen=True)
class Placement:
    """Where one distributed schema's tables are."""

    schema: str
    nodes: tuple[str, ...]  # host:port of the nodes holding its shards (one, unless moving)
    size: str


def placements(url: str) -> dict[str, Placement] | None:
    """Schema → its placement, read from the coordinator's metadata (citus_schemas,
    citus_shards); None when the database is not a Citus coordinator."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        if not has_citus(conn):
            return None
        rows = conn.execute(
            "SELECT s.schema_name::text, s.schema_size, "
            "       coalesce(array_agg(DISTINCT sh.nodename || ':' || sh.nodeport) "
            "                FILTER (WHERE sh.nodename IS NOT NULL), '{}') "
            "FROM citus_schemas s "
            "LEFT JOIN citus_shards sh ON sh.colocation_id = s.colocation_id "
            "GROUP BY s.schema_name, s.schema_size ORDER BY 1"
        ).fetchall()
    return {r[0]: Placement(r[0], tuple(sorted(r[2])), r[1]) for r in rows}


def placement_lines(url: str, schemas: dict[str, str]) -> list[str]:
    """For `groundnote check` on Citus: where each unit lives (`schemas`: unit label → schema
    name); nothing on a plain PostgreSQL server."""
    found = placements(url)
    if found is None:
        return []
    lines = ["citus: the instance schema stays on the coordinator"]
    for label, schema in schemas.items():
        placed = found.get(schema)
        where = ", ".join(placed.nodes) if placed and placed.nodes else "the coordinator"
        kind = "distributed schema" if placed else "NOT distributed (local to the coordinator)"
        lines.append(f"citus: {label} lives on {where} ({kind})")
    return lines


def prepare_database(admin_url: str, name: str) -> str:
    """Create database `name` across the cluster whose coordinator `admin_url` reaches, with
    the extension in it on every node and the workers registered, and return its URL. Each
    database of a Citus cluster is a cluster of its own: CREATE DATABASE is propagated to the
    workers, the extension and the node list are not. (Tests use one per test.)"""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as admin:
        workers = admin.execute(
            "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND isactive "
            "ORDER BY nodeid"
        ).fetchall()
        coordinator = admin.execute(
            "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid = 0"
        ).fetchone()
        admin.execute("SET citus.enable_create_database_propagation = on")
        # template1 is the only template Citus propagates; the cluster is initdb'd with C
        admin.execute(f'CREATE DATABASE "{name}"')
    url = with_database(admin_url, name)
    for host, port in workers:
        worker = psycopg.conninfo.make_conninfo(url, host=host, port=port)
        with psycopg.connect(worker, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS citus")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS citus")
        if coordinator is not None:
            conn.execute("SELECT citus_set_coordinator_host(%s, %s)", coordinator)
        for host, port in workers:
            conn.execute("SELECT citus_add_node(%s, %s)", (host, port))
    return url


def drop_database(admin_url: str, name: str) -> None:
    """Drop a database made by `prepare_database` on every node. Node by node, each WITH
    (FORCE): Citus propagates DROP DATABASE without the FORCE, and each worker's maintenance
    daemon holds a session on its copy."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as admin:
        nodes = admin.execute(
            "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 ORDER BY nodeid"
        ).fetchall()
        for host, port in nodes:
            worker = psycopg.conninfo.make_conninfo(admin_url, host=host, port=port)
            with psycopg.connect(worker, autocommit=True) as conn:
                _drop_forced(conn, name)
        admin.execute("SET citus.enable_create_database_propagation = off")
        _drop_forced(admin, name)


def _drop_forced(conn: Any, name: str) -> None:
    """DROP DATABASE … WITH (FORCE), again while a session still holds it: FORCE ends the
    sessions it finds, and a maintenance daemon may connect anew in between (CI's Citus run
    once failed on 'database … is being accessed by other users')."""
    import psycopg

    for attempt in range(10):
        try:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except psycopg.errors.ObjectInUse:
            if attempt == 9:
                raise
            time.sleep(0.2)


def with_database(url: str, name: str) -> str:
    """`url` naming the database `name` instead of its own."""
    base, _, query = url.partition("?")
    scheme, _, rest = base.partition("://")
    authority = rest.split("/", 1)[0]
    return f"{scheme}://{authority}/{name}" + (f"?{query}" if query else "")
