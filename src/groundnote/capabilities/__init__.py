"""The capability registry and the declaration type; no subsystem logic lives here."""

from groundnote.capabilities.context import Context, Services
from groundnote.capabilities.declaration import (
    Annotations,
    Capability,
    Claim,
    CliExposure,
    HttpExposure,
    McpExposure,
    PageExposure,
    Policies,
    Prompt,
    PromptArgument,
    ShapeExposure,
    Tenancy,
)
from groundnote.capabilities.pipeline import PIPELINE, usable, validation_error
from groundnote.capabilities.registry import LogAs, Registry, check_declaration, input_sha256

__all__ = [
    "PIPELINE",
    "Annotations",
    "Capability",
    "Claim",
    "CliExposure",
    "Context",
    "HttpExposure",
    "LogAs",
    "McpExposure",
    "PageExposure",
    "Policies",
    "Prompt",
    "PromptArgument",
    "Registry",
    "Services",
    "ShapeExposure",
    "Tenancy",
    "check_declaration",
    "input_sha256",
    "usable",
    "validation_error",
]
