"""Prompt arguments are matched whole: a trailing newline does not pass a `$` (issue 15.4)."""

from __future__ import annotations

import pytest

from groundnote.domain.errors import ValidationFailed
from groundnote.runtime import Runtime


@pytest.mark.parametrize(
    ("prompt", "arguments"),
    [
        ("create_level", {"scope": "sales\n", "type": "customer", "name": "Acme"}),
        (
            "file_incoming_mail",
            {"scope": "sales", "source": "mail:<a@b>\n", "subject": "s", "sender": "x"},
        ),
        (
            "assign_document",
            {"scope": "sales", "ref": "entity/sales-e0001\n", "description": "d"},
        ),
    ],
)
def test_a_trailing_newline_is_refused(
    runtime: Runtime, prompt: str, arguments: dict[str, str]
) -> None:
    render = runtime.registry.prompts[prompt].render
    with pytest.raises(ValidationFailed, match="not valid"):
        render(arguments, runtime.config)
    clean = {k: v.rstrip("\n") for k, v in arguments.items()}
    assert render(clean, runtime.config)


def test_a_scope_name_with_a_trailing_newline_is_refused(runtime: Runtime) -> None:
    with pytest.raises(ValidationFailed, match="scope name"):
        runtime.home.create_scope("sales\n")
    assert runtime.home.scope_names() == []
