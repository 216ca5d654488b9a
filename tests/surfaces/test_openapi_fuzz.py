"""schemathesis against /openapi.json: no 500, every response matches its documented schema.

The operations are walked in one test (schemathesis' pytest plugin does not load under the
pytest in use here); a failure names the operation and the failing case. A schema-valid
request may still be refused by a business rule (a reference that does not exist, a scope
without a repository), so schemathesis' "positive data is accepted" check is left out.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from groundnote.runtime import Runtime
from groundnote.surfaces.http import create_app

pytestmark = pytest.mark.slow


def test_every_operation_keeps_its_contract(runtime: Runtime, scope: str, agent_token: str) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(runtime))
    headers = {"Authorization": f"Bearer {agent_token}"}
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case: Any) -> None:
            case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

        check()
        checked.append(operation.label)
    assert checked
