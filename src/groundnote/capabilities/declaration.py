"""One declaration per operation; every surface is derived from it (DESIGN §5.1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from groundnote.auth.principal import Right
from groundnote.config import Config
from groundnote.store.home import Home

if TYPE_CHECKING:
    from groundnote.capabilities.context import Context

__all__ = [
    "Annotations",
    "Capability",
    "Claim",
    "CliExposure",
    "HttpExposure",
    "McpExposure",
    "PageExposure",
    "Policies",
    "Prompt",
    "PromptArgument",
    "ShapeExposure",
    "Tenancy",
]

InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT", bound=BaseModel)

# Finds the scope a value of the input stands for (e.g. the scope a directory is bound to);
# None: the value stands for no scope, and the call is checked like an instance-wide one.
ScopeLookup = Callable[[Home, Any], str | None]


@dataclass(frozen=True)
class McpExposure:
    tool: str
    title: str  # what a host shows a person beside the tool, e.g. "Find an entity by name"


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
class PageExposure:
    """Read by an approval page at `path` (query parameters fill the input); persons only."""

    path: str


@dataclass(frozen=True)
class ShapeExposure:
    """Resolved by pointer at the impulse resolve endpoint (seed 003): `{"pointer": {"type":
    name, …}}`; the rest of the pointer is the input. A `_write` name is a write shape."""

    name: str
    payload_field: str | None = None  # the pointer field holding a write's payload

    @property
    def writes(self) -> bool:
        return self.name.endswith("_write")


@dataclass(frozen=True)
class Annotations:
    """What an MCP client is told about a tool; every capability states read_only itself."""

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
class Tenancy:
    """Where a call's scope comes from; the registry checks the right there before the handler.

    * `Tenancy.field("scope")`, `Tenancy.fields("scope", "scopes")`: input fields holding a
      scope name or a list of them. A field left out (an optional one) makes the call reach
      every scope the grant holds the right on, and only those.
    * `Tenancy.id_field("id")`: an id or ref that carries its scope (`sales-e0007`,
      `entity/sales-e0007@3`, `link/sales-l0042`, `sales-0001`).
    * `Tenancy.found_by("path", lookup)`: a value the subsystem maps to a scope (a directory
      to the scope it is bound to); a value that maps to none is checked as instance-wide.
    * `Tenancy.org()`: the caller's organisation (seed 003's impulses). The right is the
      strongest the grant holds; rows are the org's.
    * `Tenancy.instance()`: no scope of its own (list_scopes, a directory nobody bound): the
      grant must hold the right somewhere, and the call sees only the scopes it holds it on.
    """

    kind: Literal["fields", "id", "lookup", "org", "instance"]
    names: tuple[str, ...] = ()
    lookup: ScopeLookup | None = None

    @classmethod
    def field(cls, name: str) -> Tenancy:
        return cls("fields", (name,))

    @classmethod
    def fields(cls, *names: str) -> Tenancy:
        return cls("fields", names)

    @classmethod
    def id_field(cls, name: str) -> Tenancy:
        return cls("id", (name,))

    @classmethod
    def found_by(cls, name: str, lookup: ScopeLookup) -> Tenancy:
        return cls("lookup", (name,), lookup)

    @classmethod
    def org(cls) -> Tenancy:
        return cls("org")

    @classmethod
    def instance(cls) -> Tenancy:
        return cls("instance")

    def describe(self, input: type[BaseModel]) -> str:
        """One line for the reference page of a capability taking `input`."""
        named = " or ".join(f"`{n}`" for n in self.names)
        # One optional field may be left out; of several (scope or scopes) the input asks one.
        optional = len(self.names) == 1 and not input.model_fields[self.names[0]].is_required()
        return {
            "fields": f"the scope named by {named}"
            + ("; left out, every scope your grant reaches" if optional else ""),
            "id": f"the scope the id in {named} carries",
            "lookup": f"the scope {named} is bound to; unbound, instance-wide",
            "org": "your grant's organisation",
            "instance": "instance-wide: every scope your grant reaches",
        }[self.kind]


@dataclass(frozen=True)
class Capability(Generic[InputT, OutputT]):
    """`handler(ctx, input) -> output`; the registry validates, checks rights and logs around it."""

    name: str  # e.g. graph.entity_resolve
    kind: Literal["query", "command"]
    right: Right
    tenancy: Tenancy  # where the scope comes from; the right is checked there
    input: type[InputT]
    output: type[OutputT]
    description: str
    handler: Callable[[Context, InputT], OutputT]
    annotations: Annotations  # no default: a command that forgot would be advertised read-only
    mcp: McpExposure | None = None
    http: HttpExposure | None = None
    cli: CliExposure | None = None
    page: PageExposure | None = None
    shape: ShapeExposure | None = None
    approval: bool = False  # served on the approval channel (persons only)
    policies: Policies = field(default_factory=Policies)
    log_operation: str | None = None  # the scope file's search_log.operation; None: instance log
    # Callable without credentials: always (True) or as the configuration says; the handler
    # then acts for nobody in particular.
    anonymous: bool | Callable[[Config], bool] = False
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
        if self.page:
            found.add("approval")
        if self.shape:
            found.add("api")
        if self.cli:
            found.add("cli")
        return frozenset(found)

    @property
    def summary(self) -> str:
        return self.description.split(". ")[0].rstrip(".") + "."

    def admits_anonymous(self, config: Config) -> bool:
        return self.anonymous(config) if callable(self.anonymous) else self.anonymous


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
