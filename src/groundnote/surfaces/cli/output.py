"""Printing answers and errors: `--output json` for scripts (complete), `table` for people.

A table shows what a person needs at a glance on a terminal of any width, 80 columns too:
scalars as `field: value` lines, a nested object as a two-column table, a list of objects as
a table of its main columns (ids and refs whole, text wrapped), nested values summarised in a
few words, a path as `A › B › C`, and the `next` steps last. Columns that do not fit are
named under the table; `--output json` has every field.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

__all__ = ["print_error", "print_result", "summary"]

# Columns people look for first, in this order; the rest follow in the answer's order.
_FIRST = (
    "id",
    "ref",
    "from_ref",
    "to_ref",
    "name",
    "scope",
    "grant",
    "person",
    "rights",
    "type",
    "kind",
    "status",
    "verdict",
    "right",
    "statement",
    "line",
    "title",
    "term",
    "document",
    "path",
    "date",
    "valid_from",
    "valid_to",
    "score",
    "match",
    "count",
    "approval_mode",
    "pending",
)
# Never cut: people copy them into the next command.
_WHOLE = {
    "id",
    "ref",
    "scope",
    "name",
    "grant",
    "person",
    "target",
    "from_ref",
    "to_ref",
    "source",
    "head",
}
# Text that wraps, so it may be narrow.
_TEXT = {"statement", "line", "title", "excerpt", "why", "reason", "message", "quote"}
_TEXT_MIN = 24
_CELL_MAX = 60
_PATH_KEYS = {"path", "old_path"}


def _short(text: str, limit: int = _CELL_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join(items: list[str], limit: int | None, sep: str = ", ") -> str:
    """Items joined, whole ones only: those past `limit` characters are counted, not cut."""
    if limit is None:
        return sep.join(items)
    shown: list[str] = []
    for item in items:
        if shown and len(sep.join([*shown, item])) > limit:
            return f"{sep.join(shown)} (+{len(items) - len(shown)} more)"
        shown.append(item)
    return sep.join(shown)


def _is_path(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and "name" in v and "type" in v for v in value)
    )


def summary(value: Any, key: str = "", limit: int | None = _CELL_MAX) -> str:
    """A nested value in a few words: a path as names, an object by its id, a list by its
    items' ids or names (whole; the rest counted), other objects by their size."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, list):
        if not value:
            return ""
        if key in _PATH_KEYS and all(isinstance(v, str) for v in value):
            return " › ".join(value)
        if _is_path(value) and (key in _PATH_KEYS or key.endswith("path")):
            return " › ".join(str(v["name"]) for v in value)
        if all(isinstance(v, str | int | float) for v in value):
            return _join([str(v) for v in value], limit)
        if all(isinstance(v, dict) for v in value):
            return _summary_of_objects(value, limit)
        return f"{len(value)} items"
    if isinstance(value, dict):
        for name in ("id", "ref", "name"):
            if isinstance(value.get(name), str):
                return str(value[name])
        scalars = [(k, v) for k, v in value.items() if not isinstance(v, dict | list)]
        text = ", ".join(f"{k}: {summary(v)}" for k, v in scalars)
        if len(scalars) == len(value) and (limit is None or len(text) <= limit):
            return text
        return f"{len(value)} fields"
    return str(value)


def _summary_of_objects(items: list[dict[str, Any]], limit: int | None) -> str:
    for name in ("name", "id", "ref", "tool"):
        if all(isinstance(v.get(name), str) for v in items):
            return _join([str(v[name]) for v in items], limit)
    if all(isinstance(v.get("kind"), str) for v in items):
        parts = []
        for v in items:
            inner = next((x for x in v.values() if isinstance(x, list)), None)
            parts.append(f"{v['kind']} ({len(inner)})" if inner is not None else str(v["kind"]))
        return _join(parts, limit)
    return f"{len(items)} items"


def _opaque(text: str) -> bool:
    """A summary that says only how big a thing is."""
    return text.endswith((" fields", " items"))


def _empty(value: Any) -> bool:
    return value is None or value is False or value in ("", [], {})


def _natural_width(column: str, rows: list[dict[str, Any]]) -> int:
    values = [summary(r.get(column), column) for r in rows]
    return max([len(column), *(len(v) for v in values)])


def _redundant(column: str, rows: list[dict[str, Any]]) -> bool:
    """`ref` beside `id` when every ref is `<kind>/<id>`."""
    return column == "ref" and all(
        isinstance(r.get("ref"), str) and r["ref"].endswith("/" + str(r.get("id"))) for r in rows
    )


def _choose(rows: list[dict[str, Any]], width: int) -> tuple[list[str], list[str]]:
    """The columns that fit `width`, main ones first; and the ones left out."""
    seen: list[str] = []
    for row in rows:
        seen.extend(k for k in row if k not in seen)
    present = [c for c in seen if not all(_empty(r.get(c)) for r in rows)]

    def says_nothing(column: str) -> bool:
        return _redundant(column, rows) or all(
            _opaque(summary(r.get(column), column)) for r in rows if r.get(column)
        )

    def rank(column: str) -> tuple[bool, int]:
        # a wide ref that is the same in every row (the one asked about) yields its place
        constant = (
            column in _WHOLE
            and len(rows) > 1
            and all(r.get(column) == rows[0].get(column) for r in rows)
        )
        return constant, _FIRST.index(column) if column in _FIRST else len(_FIRST)

    chosen: list[str] = []
    used = 1  # the left border
    for column in sorted((c for c in present if not says_nothing(c)), key=rank):
        natural = _natural_width(column, rows)
        need = natural if column in _WHOLE else min(natural, _TEXT_MIN if column in _TEXT else 16)
        if chosen and used + need + 3 > width:
            continue
        chosen.append(column)
        used += need + 3
    order = {c: i for i, c in enumerate(present)}
    chosen.sort(key=lambda c: (c not in _FIRST[:2], order[c]))
    return chosen, [c for c in present if c not in chosen]


def _list_table(key: str, rows: list[dict[str, Any]], width: int) -> Table:
    columns, left_out = _choose(rows, width)
    caption = f"also: {', '.join(left_out)} (--output json)" if left_out else None
    table = Table(
        title=key, title_justify="left", caption=caption, caption_justify="left", expand=False
    )
    for column in columns:
        whole = column in _WHOLE
        table.add_column(
            column,
            no_wrap=whole,
            overflow="fold",
            min_width=_natural_width(column, rows) if whole else None,
        )
    for row in rows:
        table.add_row(*(Text(summary(row.get(c), c)) for c in columns))
    return table


def _object_table(key: str, value: dict[str, Any]) -> Table:
    table = Table(title=key, title_justify="left", show_header=False)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for name, item in value.items():
        if not _empty(item):
            table.add_row(name, Text(summary(item, name, limit=None)))
    return table


def print_result(data: dict[str, Any], fmt: str, console: Console) -> None:
    if fmt == "json":
        console.print_json(json.dumps(data, ensure_ascii=False))
        return
    width = console.width
    for key, value in data.items():  # scalars first: the answer at a glance
        if not isinstance(value, list | dict) and value is not None:
            console.print(Text.assemble((f"{key}: ", "bold"), summary(value, key, None)))
    for key, value in data.items():
        if key == "next" or not isinstance(value, list | dict):
            continue
        if not value:
            if isinstance(value, list) and key not in _PATH_KEYS:
                console.print(Text.assemble((f"{key}: ", "bold"), "none"))
            continue
        if key in _PATH_KEYS and (_is_path(value) or all(isinstance(v, str) for v in value)):
            console.print(Text.assemble((f"{key}: ", "bold"), summary(value, key, None)))
        elif isinstance(value, dict):
            console.print(_object_table(key, value))
        elif all(isinstance(v, dict) for v in value):
            console.print(_list_table(key, value, width))
        else:
            console.print(Text.assemble((f"{key}: ", "bold"), summary(value, key, None)))
    for step in data.get("next") or []:
        console.print(Text.assemble(("next: ", "bold"), f"{step['tool']} — {step['why']}"))


def print_error(body: dict[str, Any], fmt: str, console: Console) -> None:
    if fmt == "json":
        console.print_json(json.dumps(body, ensure_ascii=False))
        return
    console.print(f"[bold red]{body['error']}[/bold red]: {body['message']}", highlight=False)
    console.print(f"[bold]remedy[/bold]: {body['remedy']}", highlight=False)
    for step in body.get("next", []):
        console.print(f"[bold]next[/bold]: {step['tool']} — {step['why']}", highlight=False)
