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
        "Read one knowledge record of a scope's repository by id: a fact, convention, "
        "constraint, memory or lesson the team wrote down, candidate or curated, with every "
        "reference it names checked (a commit, file, test, task, decision, session, rule or "
        "other record) and marked object, external, historical or missing with the reason. "
        "Use it when a question touches how the team works or why something is so; tell the "
        "person the record's status, and say which references are missing before relying on "
        "it. A `task:none` or `decision:none` reference is refused by name."
    ),
    handler=handlers.record,
    mcp=McpExposure("majordomus_knowledge_record", "Read a knowledge record"),
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
        "List the knowledge records that wait for a person's review (status candidate), "
        "newest first, each with how many of its references are missing. Use it when the "
        "person asks what is waiting or before you write a similar record; read one with "
        "majordomus_knowledge_record to see which references are missing and why. Promoting "
        "a record is the person's decision: tell them, never do it yourself."
    ),
    handler=handlers.candidates,
    mcp=McpExposure("majordomus_knowledge_candidates", "List knowledge records awaiting review"),
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
        "Check whether the knowledge index of a scope's repository is current: which record "
        "and ledger files changed, appeared or disappeared since it was built, and whether "
        "HEAD or a ref moved. It only compares; it never refreshes the index. Use it when "
        "answers about records look outdated, and tell the person what changed."
    ),
    handler=handlers.status,
    mcp=McpExposure("majordomus_knowledge_status", "Check whether the knowledge index is current"),
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
        "Check every knowledge record of a scope's repository: each reference that is "
        "missing, with the reason, and each record or ledger file that could not be read, "
        "with its path and line; `ok` is false when anything is missing or malformed. Use it "
        "when the person asks whether the knowledge base is sound, and report the problems "
        "with their paths so they can be fixed."
    ),
    handler=handlers.validate,
    mcp=McpExposure("majordomus_knowledge_validate", "Check every knowledge record"),
    http=HttpExposure("GET", "/api/v1/knowledge/validate"),
    cli=CliExposure(("knowledge", "validate"), fails_unless="ok"),
    annotations=_READ,
    policies=Policies(cache="disabled"),
)

CAPABILITIES: list[Capability[Any, Any]] = [RECORD, CANDIDATES, STATUS, VALIDATE]
