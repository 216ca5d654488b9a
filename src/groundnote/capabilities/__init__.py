"""The capability registry and the declaration type; no subsystem logic lives here."""

from groundnote.capabilities.context import Context
from groundnote.capabilities.declaration import (
    Annotations,
    Capability,
    Claim,
    CliExposure,
    HttpExposure,
    McpExposure,
    Policies,
    Prompt,
    PromptArgument,
)
from groundnote.capabilities.registry import Registry, input_sha256, validation_error

__all__ = [
    "Annotations",
    "Capability",
    "Claim",
    "CliExposure",
    "Context",
    "HttpExposure",
    "McpExposure",
    "Policies",
    "Prompt",
    "PromptArgument",
    "Registry",
    "input_sha256",
    "validation_error",
]
