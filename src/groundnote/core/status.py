"""A scope's approval mode, and what in core's tables waits for a person (for `status`)."""

from __future__ import annotations

from groundnote.capabilities import Context
from groundnote.store.sql import Connection

__all__ = ["approval_mode", "proposed_rule_count"]


def approval_mode(ctx: Context, scope: str) -> str:
    """The scope's approval mode: groundnote.json overrides what `scope create` recorded."""
    override = ctx.config.scopes.get(scope)
    if override and override.approval:
        return override.approval
    return ctx.home.scope_info(scope).approval_mode


def proposed_rule_count(conn: Connection) -> dict[str, int]:
    count: int = conn.execute(
        "SELECT count(*) FROM rule_state WHERE status = 'proposed'"
    ).fetchone()[0]
    return {"rules": count}
