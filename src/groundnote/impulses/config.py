"""The `impulses` section of groundnote.json (seed 003)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ImpulsesConfig"]


class ImpulsesConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ema_alpha: float = Field(
        0.2,
        gt=0,
        le=1,
        description=(
            "Weight of a new observation when conceptLink_write links an existing edge again: "
            "weight = alpha * observed + (1 - alpha) * previous."
        ),
    )
    require_auth: bool = Field(
        False,
        description=(
            "true: every resolve needs credentials. false: anonymous callers may resolve the "
            "read allowlist. Writes need credentials either way."
        ),
    )
    anonymous_org: str = Field(
        "public",
        min_length=1,
        description=(
            "The org whose rows anonymous callers read through the read allowlist. No grant "
            "belongs to it unless the operator creates one with this org."
        ),
    )
    vessel_id: str = Field(
        "groundnote", min_length=1, description="The vessel id discovery advertises."
    )
    max_body_bytes: int = Field(
        1_048_576, ge=1024, description="A resolve request body above this size is refused."
    )
    audit_ttl_seconds: int | None = Field(
        None,
        ge=1,
        description="How long conceptUpkeepAuditLog impulses are kept; null: for ever.",
    )
    prune_interval_seconds: int = Field(
        300, ge=1, description="How often `serve` deletes impulses whose expires_at has passed."
    )
