"""The PostgreSQL schemas of a home (DESIGN §4): the instance in `groundnote`, a scope `<s>` in
`scope_<s>` with `-` as `_` (one-to-one: scope names have no `_`). Kept apart from
store/postgres.py so that naming a schema never imports the driver."""

from __future__ import annotations

__all__ = ["INSTANCE_SCHEMA", "schema_for"]

INSTANCE_SCHEMA = "groundnote"


def schema_for(scope: str) -> str:
    """The schema of a scope."""
    return "scope_" + scope.replace("-", "_")
