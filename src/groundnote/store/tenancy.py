"""Tenancy as a second line of defence on PostgreSQL (issue 20 item 8): one role per schema.

The first line is the code: every query of a scope runs on that scope's unit, whose
connections have `search_path` on its schema. The second is the database's own privileges, so
that a query that names another schema by mistake (a qualified name, a path left over on a
pooled connection) is refused by PostgreSQL itself: each schema the store makes is owned by a
role of its own, `gn_<schema>` (NOLOGIN, no other privileges), owner of the schema and of
every table, view and function in it, and a checkout serving the schema runs as that role
(`SET ROLE`, sent in the same round trip as its `search_path`, only when the connection last
served another schema). A role has no privilege on any other schema, so reading
`scope_b.entity` on a connection serving `scope_a` fails with `permission denied for schema
scope_b`; the instance's schema `groundnote` is one more such unit, with its role.

Roles belong to the server, not to one database: two databases on one server holding a scope
of the same name share its role, which reaches only the schemas of that name, one per
database, and a connection reaches one database. The login role must be allowed to create
roles (a superuser, or CREATEROLE, which makes it a member of each role so that it may SET
it); without that the store runs without this second line and says so once in the log.

Not on Citus: its coordinator opens connections to the workers as the current role, and a
NOLOGIN role cannot log in there, so on a Citus database the schemas stay the login role's
(docs/scaling.md).
"""

from __future__ import annotations

import logging
from typing import Any

from groundnote.store import citus

__all__ = ["adopt", "role_for"]

log = logging.getLogger("groundnote.store")


def role_for(schema: str) -> str:
    """The role of a schema; unquoted identifiers, like the schema names (`[a-z0-9_]`)."""
    return f"gn_{schema}"


def adopt(conn: Any, schema: str) -> str | None:
    """Inside the caller's transaction: make `schema` and everything in it owned by its role
    (created if missing); the role, or None where roles are not used (Citus, or a login role
    that may not create roles)."""
    if citus.has_citus(conn):
        return None
    role = role_for(schema)
    conn.execute("SAVEPOINT tenancy")
    try:
        conn.execute(_CREATE_ROLE.replace("ROLE_NAME", role))
        member = conn.execute("SELECT pg_has_role(current_user, %s, 'MEMBER')", (role,))
        if not member.fetchone()[0]:
            conn.execute(f"GRANT {role} TO CURRENT_USER")
    except Exception as exc:  # psycopg's InsufficientPrivilege, without importing it here
        conn.execute("ROLLBACK TO SAVEPOINT tenancy")
        log.warning(
            "schema %s: no role of its own (%s); a connection serving it could read other "
            "schemas if a query named them. Give the database user CREATEROLE to have one.",
            schema,
            str(exc).strip(),
        )
        return None
    conn.execute("RELEASE SAVEPOINT tenancy")
    conn.execute(f'ALTER SCHEMA "{schema}" OWNER TO {role}')
    conn.execute(_OWN_EVERYTHING.replace("SCHEMA_NAME", schema).replace("ROLE_NAME", role))
    return role


# Several databases on one server may create the same role at once: the loser's error is not
# one, the role is there.
_CREATE_ROLE = """
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ROLE_NAME') THEN
    CREATE ROLE ROLE_NAME NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$
"""

# Tables (their indexes and row types follow), views, sequences and functions of the schema.
_OWN_EVERYTHING = """
DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c
           WHERE c.relnamespace = 'SCHEMA_NAME'::regnamespace
             AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
             AND pg_get_userbyid(c.relowner) <> 'ROLE_NAME' LOOP
    EXECUTE format('ALTER %s %s OWNER TO ROLE_NAME',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                     WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      r.name);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p
           WHERE p.pronamespace = 'SCHEMA_NAME'::regnamespace
             AND pg_get_userbyid(p.proowner) <> 'ROLE_NAME' LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ROLE_NAME', r.name);
  END LOOP;
END $$
"""
