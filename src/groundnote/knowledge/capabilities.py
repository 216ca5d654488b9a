"""The four knowledge capabilities: record, candidates, status and validate (seed 004); the
models are in models.py, the handlers in handlers.py.

The scope names the checkout. Seed 004's input is the record id alone, because a majordomus
server serves one repository; a Groundnote server holds many scopes, each bound to its own
checkout, so the input names the scope as every Groundnote operation does, and the registry
checks the grant's right on it before the handler runs. It is optional so that the seed's
one-key input keeps working: omitted, it is the one scope the grant may read that has a
repository bound; with several, the call is refused with the choices.
"""

from __future__ import annotations

from typing import Any

from groundnote.auth.principal import Right
from groundnote.capabilities import (
    Annotations,
    Capability,
    Claim,
    CliExposure,
    HttpExposure,
    McpExposure,
    Policies,
    Tenancy,
)
from groundnote.knowledge import handlers
from groundnote.knowledge.models import (
    CandidatesInput,
    CandidatesOutput,
    KnowledgeRecord,
    KnowledgeRecordInput,
    StatusInput,
    StatusOutput,
    ValidateInput,
    ValidateOutput,
)

__all__ = ["CANDIDATES", "CAPABILITIES", "RECORD", "STATUS", "VALIDATE"]


_READ = Annotations(read_only=True, idempotent=True)

RECORD: Capability[KnowledgeRecordInput, KnowledgeRecord] = Capability(
    name="knowledge_base.record",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=KnowledgeRecordInput,
    output=KnowledgeRecord,
    description=(
        "One knowledge record by id — candidate or curated — with every reference it names "
        "resolved: a session against the tracked session records and the ledger, a task or "
        "decision against the ledger and the task store, a commit against git, a file or test "
        "against the index and the tree, a rule, an ADR, an issue or another record against "
        "the index. Which references dangle is the question a reviewer asks before promoting, "
        "and the one the integrity validator asks of every record. A `task:none` or "
        "`decision:none` reference is refused by name."
    ),
    handler=handlers.record,
    mcp=McpExposure("majordomus_knowledge_record"),
    http=HttpExposure("GET", "/api/v1/knowledge/record"),
    cli=CliExposure(("knowledge", "record"), arguments=("id",)),
    annotations=_READ,
    policies=Policies(benchmark="required", cache="disabled"),
    claims=(
        Claim(
            "knowledge-served-on-every-surface",
            "one record by id answers with the same content over the command line, HTTP and MCP, "
            "and a key the input does not declare is refused on all of them",
            "tests/knowledge/test_surfaces.py::test_the_record_is_the_same_on_every_surface",
        ),
        Claim(
            "references-resolve-to-four-outcomes",
            "every reference resolves to object, external, historical or missing, with its target",
            "tests/knowledge/test_resolution.py::test_every_outcome_with_its_target",
        ),
        Claim(
            "deleted-files-are-historical",
            "a file deleted in a later commit resolves historical at <commit>:<path>",
            "tests/knowledge/test_resolution.py::"
            "test_a_file_deleted_in_a_later_commit_is_historical_at_its_last_holder",
        ),
    ),
)

CANDIDATES: Capability[CandidatesInput, CandidatesOutput] = Capability(
    name="knowledge_base.candidates",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=CandidatesInput,
    output=CandidatesOutput,
    description=(
        "The knowledge records awaiting review — status `candidate` — newest first, each with "
        "whether every reference it names resolves and how many dangle. Which references "
        "dangle is the question a reviewer asks before promoting; read one with "
        "majordomus_knowledge_record to see which and why."
    ),
    handler=handlers.candidates,
    mcp=McpExposure("majordomus_knowledge_candidates"),
    http=HttpExposure("GET", "/api/v1/knowledge/candidates"),
    cli=CliExposure(("knowledge", "candidates")),
    annotations=_READ,
    policies=Policies(cache="disabled"),
)

STATUS: Capability[StatusInput, StatusOutput] = Capability(
    name="knowledge_base.status",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=StatusInput,
    output=StatusOutput,
    description=(
        "The derivation status of the checkout: which record and ledger files changed since "
        "the knowledge index was built, which are new and which are gone, and whether HEAD or "
        "a ref moved. It reads and compares; it never refreshes the index."
    ),
    handler=handlers.status,
    mcp=McpExposure("majordomus_knowledge_status"),
    http=HttpExposure("GET", "/api/v1/knowledge/status"),
    cli=CliExposure(("knowledge", "status")),
    annotations=_READ,
    policies=Policies(cache="disabled"),
)

VALIDATE: Capability[ValidateInput, ValidateOutput] = Capability(
    name="knowledge_base.validate",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ValidateInput,
    output=ValidateOutput,
    description=(
        "The integrity validator: every knowledge record of the checkout, every reference that "
        "dangles with the reason, and every record or ledger file that could not be read, with "
        "its path and line. `ok` is false when anything dangles or is malformed."
    ),
    handler=handlers.validate,
    mcp=McpExposure("majordomus_knowledge_validate"),
    http=HttpExposure("GET", "/api/v1/knowledge/validate"),
    cli=CliExposure(("knowledge", "validate"), fails_unless="ok"),
    annotations=_READ,
    policies=Policies(cache="disabled"),
)

CAPABILITIES: list[Capability[Any, Any]] = [RECORD, CANDIDATES, STATUS, VALIDATE]
