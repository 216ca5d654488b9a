"""Reading one committed source file into a pydantic model, with errors naming file and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from groundnote.domain.errors import ValidationFailed

__all__ = ["parse_model", "read_data", "source_error"]

ModelT = TypeVar("ModelT", bound=BaseModel)


def source_error(file: Path | str, key: str, problem: str) -> ValidationFailed:
    where = f"{file}" + (f", key {key}" if key else "")
    return ValidationFailed(
        f"{where}: {problem}.",
        remedy=f"Correct {key or 'the file'} in {file} and run `groundnote context up` again.",
        file=str(file),
        key=key or None,
    )


def read_data(file: Path) -> Any:
    """The parsed YAML or JSON of a file (by its suffix)."""
    try:
        text = file.read_text("utf-8")
    except FileNotFoundError:
        raise source_error(file, "", "the file does not exist") from None
    except UnicodeDecodeError as exc:
        raise source_error(file, "", f"the file is not UTF-8 text ({exc.reason})") from None
    try:
        if file.suffix == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise source_error(file, "", f"not valid JSON at line {exc.lineno}: {exc.msg}") from None
    except yaml.YAMLError as exc:
        raise source_error(file, "", f"not valid YAML: {exc}") from None


def parse_model(model: type[ModelT], data: Any, file: Path | str, prefix: str = "") -> ModelT:
    """Validate `data`; the first problem is reported as `file, key a.b.0.c: message`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(
            [prefix, *(str(p) for p in first["loc"])] if prefix else [str(p) for p in first["loc"]]
        )
        problem = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise source_error(file, key, problem[:1].lower() + problem[1:]) from None
