"""The demo company: a confirmed organisation tree, three mails, an adopted rule with its
entity, and two things waiting for a person, in scope `demo` only, loaded once."""

from __future__ import annotations

from typing import Any

from groundnote.auth import LOCAL_OPERATOR
from groundnote.runtime import Runtime
from groundnote.surfaces.cli.admin import LOCAL_PERSON, approval_login_link
from groundnote.surfaces.cli.demo import COMPANY, DEMO_SCOPE, TREE, load_demo


def _rows(runtime: Runtime, sql: str) -> list[Any]:
    with runtime.home.scope_db(DEMO_SCOPE).read() as conn:
        return [tuple(r) for r in conn.execute(sql)]


def _operator(runtime: Runtime, capability: str, /, **raw: Any) -> dict[str, Any]:
    out = runtime.invoke(
        runtime.registry.get(capability),
        {"scope": DEMO_SCOPE, **raw},
        principal=LOCAL_OPERATOR,
        channel="cli",
    )
    return out.model_dump(mode="json")


def test_the_demo_company_is_a_small_settled_firm_with_work_waiting(
    runtime: Runtime, scope: str
) -> None:
    approval_login_link(runtime, "http://127.0.0.1:8765")  # serve makes the local person
    report = load_demo(runtime, LOCAL_PERSON)
    assert (report.loaded, report.entities, report.sources, report.rules) == (True, 9, 3, 2)
    assert runtime.home.scope_names() == [DEMO_SCOPE, scope]
    statuses = _rows(runtime, "SELECT status, count(*) FROM entity_current GROUP BY status")
    assert statuses == [("active", len(TREE))]
    [top] = _operator(runtime, "graph.entity_tree")["nodes"]
    assert top["name"] == COMPANY and top["children"] == 2

    found = _operator(runtime, "core.search", query="spare parts", compact=False)
    [bundle] = found["bundles"]
    assert bundle["head"]["status"] == "adopted"
    assert [e["name"] for e in bundle["head"]["entities"]] == ["Bäckerei Sommer"]
    assert [g["kind"] for g in bundle["groups"]] == ["source", "entity"]  # both mails cited
    pending = _operator(runtime, "core.status")["scopes"][0]["pending"]
    assert pending == {"rules": 1, "entities": 0, "links": 1}
    decided_by = _rows(runtime, "SELECT DISTINCT decided_by FROM rule_decision")
    assert decided_by == [("person:local",)]
    # nothing of the demo reaches another scope
    assert _rows(runtime, "SELECT count(*) FROM rule") == [(2,)]
    with runtime.home.scope_db(scope).read() as conn:
        assert conn.execute("SELECT count(*) FROM entity").fetchone()[0] == 0


def test_the_demo_loads_once_and_into_an_empty_demo_scope(runtime: Runtime) -> None:
    approval_login_link(runtime, "http://127.0.0.1:8765")
    runtime.home.create_scope(DEMO_SCOPE)  # the empty scope earlier first starts made
    assert load_demo(runtime, LOCAL_PERSON).loaded
    before = _rows(runtime, "SELECT count(*) FROM entity_version")
    assert load_demo(runtime, LOCAL_PERSON).loaded is False
    assert _rows(runtime, "SELECT count(*) FROM entity_version") == before


def test_a_scope_named_demo_with_other_data_is_never_touched(runtime: Runtime) -> None:
    approval_login_link(runtime, "http://127.0.0.1:8765")
    runtime.home.create_scope(DEMO_SCOPE)
    _operator(runtime, "graph.entity_create", type="organisation", name="Echte Firma AG")
    report = load_demo(runtime, LOCAL_PERSON)
    assert (report.loaded, report.company) == (False, False)
    assert _rows(runtime, "SELECT name FROM entity_current") == [("Echte Firma AG",)]
