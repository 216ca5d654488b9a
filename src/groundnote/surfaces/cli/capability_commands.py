"""One CLI command per capability with a `cli` exposure, derived from its input model.

Every input field becomes an option (`--field-name`); the fields `cli.arguments` names (by
default those the HTTP path names, `{id}`) become positional arguments; `--json` passes the whole input; list fields repeat the option;
nested values are given as JSON text. Validation is the registry's, as on every surface.
"""

from __future__ import annotations

import enum
import json
import re
import sys
import types
import typing
from typing import Any

import click
from pydantic.fields import FieldInfo
from rich.console import Console

from groundnote.capabilities import Capability
from groundnote.domain.errors import GroundnoteError, ValidationFailed
from groundnote.surfaces.cli.output import print_error, print_result
from groundnote.surfaces.cli.session import CliSession

__all__ = ["add_capability_commands"]

_SCALARS = (str, int, float)


def _bare(annotation: Any) -> Any:
    """The type under `Annotated[…]` wrappers (constraints, `SkipJsonSchema`)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _kind(annotation: Any) -> str:
    """`flag`, `scalar`, `list` or `json` for how the option takes its value: a plain string,
    number or choice is taken as typed; only objects and lists of objects are JSON text."""
    annotation = _bare(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = {_kind(a) for a in typing.get_args(annotation) if _bare(a) is not type(None)}
        return kinds.pop() if len(kinds) == 1 else "json"
    if annotation is bool:
        return "flag"
    if origin is typing.Literal or (
        isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    ):
        return "scalar"
    args = typing.get_args(annotation)
    if origin in (list, set, tuple) and args and _kind(args[0]) == "scalar":
        return "list"
    if annotation in _SCALARS:
        return "scalar"
    return "json"


def _param(name: str, field: FieldInfo, positional: bool) -> click.Parameter:
    help_text = (field.description or "").replace("\n", " ")
    if positional:
        return click.Argument([name], required=False)
    flag = "--" + name.replace("_", "-")
    kind = _kind(field.annotation)
    if kind == "flag":
        return click.Option([f"{flag}/--no-{flag[2:]}", name], default=None, help=help_text)
    if kind == "list":
        return click.Option([flag, name], multiple=True, help=help_text)
    if kind == "json":
        return click.Option([flag, name], help=(help_text + " (JSON)").strip())
    return click.Option([flag, name], help=help_text)


def _collect(cap: Capability[Any, Any], given: dict[str, Any]) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    whole = given.pop("json_input", None)
    if whole:
        try:
            parsed = json.loads(whole)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"--json is not valid JSON: {exc}.") from exc
        if not isinstance(parsed, dict):
            raise ValidationFailed("--json must be a JSON object.")
        raw.update(parsed)
    for name, value in given.items():
        if value is None or value == ():
            continue
        field = cap.input.model_fields[name]
        if _kind(field.annotation) == "json":
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValidationFailed(
                    f"--{name.replace('_', '-')} is not valid JSON: {exc}."
                ) from exc
        raw[name] = list(value) if isinstance(value, tuple) else value
    return raw


def _command(cap: Capability[Any, Any], name: str) -> click.Command:
    assert cap.cli is not None
    positional = cap.cli.arguments
    if positional is None:
        positional = tuple(re.findall(r"{(\w+)}", cap.http.path)) if cap.http else ()
    params: list[click.Parameter] = [
        _param(field_name, field, field_name in positional)
        for field_name, field in cap.input.model_fields.items()
    ]
    params.append(
        click.Option(["--json", "json_input"], help="The whole input as one JSON object.")
    )
    params.append(
        click.Option(
            ["--output", "fmt"],
            type=click.Choice(["table", "json"]),
            default="table",
            show_default=True,
        )
    )

    @click.pass_obj
    def run(session: CliSession, /, fmt: str, **given: Any) -> None:
        out = Console()  # tables wrap to the terminal; JSON is printed unwrapped
        try:
            raw = _collect(cap, given)
            result = session.invoke(cap, raw)
        except GroundnoteError as exc:
            print_error(exc.body(), fmt, Console(stderr=True, soft_wrap=True))
            sys.exit(1)
        print_result(result, fmt, out)
        failing = cap.cli.fails_unless if cap.cli else None
        if failing is not None and not result.get(failing):
            sys.exit(1)

    return click.Command(
        name, callback=run, params=params, help=cap.description, short_help=cap.summary
    )


def add_capability_commands(
    root: click.Group, capabilities: typing.Iterable[Capability[Any, Any]]
) -> None:
    made: list[click.Group] = []
    for cap in capabilities:
        if cap.cli is None:
            continue
        group = root
        for part in cap.cli.path[:-1]:
            sub = group.commands.get(part)
            if sub is None:
                sub = click.Group(part)
                group.add_command(sub)
                made.append(sub)
            assert isinstance(sub, click.Group)
            group = sub
        group.add_command(_command(cap, cap.cli.path[-1]))
    for group in made:  # a group's help names what it holds
        group.help = "Commands: " + ", ".join(sorted(group.commands)) + "."
