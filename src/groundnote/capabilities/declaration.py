"""One declaration per operation; every surface is derived from it (DESIGN §5.1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from groundnote.auth.principal import Right

if TYPE_CHECKING:
    from groundnote.capabilities.context import Context

__all__ = [
    "Annotations",
    "Capability",
    "Claim",
    "CliExposure",
    "HttpExposure",
    "McpExposure",
    "Policies",
    "Prompt",
    "PromptArgument",
]

InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT", bound=BaseModel)


@dataclass(frozen=True)
class McpExposure:
    tool: str


@dataclass(frozen=True)
class HttpExposure:
    method: Literal["GET", "POST", "PATCH", "PUT", "DELETE"]
    path: str  # `{name}` segments are filled from input fields of that name


@dataclass(frozen=True)
class CliExposure:
    path: tuple[str, ...]  # `groundnote <path…>`
    # Input fields taken as positional arguments, in order; default: the HTTP path's `{fields}`.
    arguments: tuple[str, ...] | None = None
    # The output field whose false value makes the command exit 1 (e.g. a validation's `ok`).
    fails_unless: str | None = None


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False


@dataclass(frozen=True)
class Policies:
    benchmark: Literal["required", "optional"] = "optional"
    cache: Literal["disabled", "ttl"] = "disabled"


@dataclass(frozen=True)
class Claim:
    """A guarantee the implementation makes, and the test that proves it (`path::test`)."""

    name: str
    statement: str
    test: str


@dataclass(frozen=True)
class Capability(Generic[InputT, OutputT]):
    """`handler(ctx, input) -> output`; the registry validates, checks rights and logs around it."""

    name: str  # e.g. graph.entity_resolve
    kind: Literal["query", "command"]
    right: Right
    input: type[InputT]
    output: type[OutputT]
    description: str
    handler: Callable[[Context, InputT], OutputT]
    mcp: McpExposure | None = None
    http: HttpExposure | None = None
    cli: CliExposure | None = None
    approval: bool = False  # served on the approval channel (persons only)
    annotations: Annotations = field(default_factory=lambda: Annotations(read_only=True))
    policies: Policies = field(default_factory=Policies)
    log_operation: str | None = None  # the scope file's search_log.operation; None: instance log
    anonymous: bool = False  # callable without credentials; the handler then decides
    # Adjusts the input JSON Schema per request, e.g. enums built from config.
    adapt_schema: Callable[[dict[str, Any], Any], dict[str, Any]] | None = None
    claims: tuple[Claim, ...] = ()  # shown on the reference page; tests/platform checks each test

    @property
    def channels(self) -> frozenset[str]:
        found = set()
        if self.mcp:
            found.add("mcp")
        if self.http:
            found.add("approval" if self.approval else "api")
        if self.cli:
            found.add("cli")
        return frozenset(found)

    @property
    def summary(self) -> str:
        return self.description.split(". ")[0].rstrip(".") + "."


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = True


@dataclass(frozen=True)
class Prompt:
    """An MCP prompt: `render(arguments, runtime)` returns (role, text) messages."""

    name: str
    description: str
    arguments: tuple[PromptArgument, ...]
    render: Callable[[dict[str, str], Any], list[tuple[str, str]]]
