"""Printing answers and errors: `--output json` for scripts, `table` for people."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_error", "print_result"]


def _cell(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def _table(rows: list[dict[str, Any]], title: str) -> Table:
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    return table


def print_result(data: dict[str, Any], fmt: str, console: Console) -> None:
    if fmt == "json":
        console.print_json(json.dumps(data, ensure_ascii=False))
        return
    scalars = {k: v for k, v in data.items() if not isinstance(v, list | dict)}
    if scalars:
        console.print(_table([scalars], ""))
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            console.print(_table(value, key))
        elif isinstance(value, list | dict) and value:
            console.print(f"[bold]{key}[/bold]: {_cell(value)}")


def print_error(body: dict[str, Any], fmt: str, console: Console) -> None:
    if fmt == "json":
        console.print_json(json.dumps(body, ensure_ascii=False))
        return
    console.print(f"[bold red]{body['error']}[/bold red]: {body['message']}", highlight=False)
    console.print(f"[bold]remedy[/bold]: {body['remedy']}", highlight=False)
    for step in body.get("next", []):
        console.print(f"[bold]next[/bold]: {step['tool']} — {step['why']}", highlight=False)
