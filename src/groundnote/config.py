"""groundnote.json in the home, plus environment overrides, validated strictly.

An unknown key or a wrong type stops start-up with a message that names the file, the key
and what is allowed. Environment variables override the file: `GROUNDNOTE_ZONE`,
`GROUNDNOTE_PUBLIC_URL`, and nested keys with `__`, e.g. `GROUNDNOTE_GRAPH__MAX_DEPTH=8`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from groundnote.graph.config import GraphConfig
from groundnote.impulses.config import ImpulsesConfig
from groundnote.knowledge.config import KnowledgeConfig

__all__ = ["CONFIG_FILE", "Config", "ConfigError", "load_config"]

CONFIG_FILE = "groundnote.json"
ENV_PREFIX = "GROUNDNOTE_"
# Variables of the environment that are not configuration keys.
ENV_NOT_CONFIG = {"GROUNDNOTE_HOME", "GROUNDNOTE_TOKEN"}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


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
    jwt_issuer: str | None = None


class ServerConfig(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Extra Host headers the MCP endpoint accepts (DNS-rebinding protection).",
    )


class Config(_Section):
    zone: str = Field("Europe/Berlin", description="IANA zone in which days are counted.")
    public_url: str | None = Field(
        None, description="Base URL used in approval links; default: the address `serve` binds."
    )
    graph: GraphConfig = Field(default_factory=GraphConfig)
    scopes: dict[str, ScopeSettings] = Field(default_factory=dict)
    auth: AuthConfig = Field(default_factory=AuthConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    impulses: ImpulsesConfig = Field(default_factory=ImpulsesConfig)
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)

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
        keys = name[len(ENV_PREFIX) :].lower().split("__")
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


def load_config(home: Path, environ: dict[str, str] | None = None) -> Config:
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
    source = str(path) + (" (with GROUNDNOTE_* environment overrides)" if overrides else "")
    try:
        return Config.model_validate(_merge(data, overrides))
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source)) from exc
