"""The core capabilities: sources, rules, search, provenance, feedback, export and import (DESIGN
§7). The models are in models.py, the handlers in handlers.py."""

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
from groundnote.core import handlers
from groundnote.core.models import (
    ExportInput,
    ExportOutput,
    FeedbackInput,
    FeedbackOutput,
    ImportInput,
    ImportOutput,
    ListRulesInput,
    ListScopesInput,
    ListScopesOutput,
    ProposeRuleInput,
    ProvenanceOutput,
    ReadRuleInput,
    RetractInput,
    RuleList,
    ScopePageInput,
    SearchInput,
    SearchOutput,
    StatusInput,
    StatusOutput,
    StoreSourceInput,
)
from groundnote.core.rules import (
    RuleAnswer,
)
from groundnote.core.sources import SourceOut

__all__ = [
    "CAPABILITIES",
    "EXPORT",
    "FEEDBACK",
    "IMPORT",
    "LIST_PROPOSALS",
    "LIST_REJECTED",
    "LIST_RULES",
    "LIST_SCOPES",
    "PROPOSE_RULE",
    "PROVENANCE",
    "READ_RULE",
    "RULE_RETRACT",
    "SEARCH",
    "STATUS",
    "STORE_SOURCE",
]


LIST_SCOPES: Capability[ListScopesInput, ListScopesOutput] = Capability(
    name="core.list_scopes",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.instance(),
    input=ListScopesInput,
    output=ListScopesOutput,
    description=(
        "List the scopes your grant may use, with your right on each and its approval mode. "
        "Call it first when you do not know which scope to name; every other tool needs one."
    ),
    handler=handlers.list_scopes,
    mcp=McpExposure("list_scopes", "List your scopes"),
    http=HttpExposure("GET", "/v1/scopes"),
    cli=CliExposure(("scopes",)),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_scopes",
)


STATUS: Capability[StatusInput, StatusOutput] = Capability(
    name="core.status",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=StatusInput,
    output=StatusOutput,
    description=(
        "Report what a scope's store holds: the schema version of each subsystem, rows per "
        "table and the file size. Without a scope it reports every scope you may read."
    ),
    handler=handlers.status,
    mcp=McpExposure("status", "Show what a scope holds"),
    http=HttpExposure("GET", "/v1/status"),
    cli=CliExposure(("status",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
    log_operation="status",
    claims=(
        Claim(
            "served-alike-on-every-surface",
            "the same input gives the same content directly, over HTTP, MCP and the command line, "
            "and an unknown key is refused on each",
            "tests/surfaces/test_parity.py::test_status_is_the_same_on_every_surface",
        ),
        Claim(
            "scopes-never-revealed",
            "a foreign and a missing scope get byte-identical refusals",
            "tests/surfaces/test_parity.py::test_http_refusals_are_byte_identical",
        ),
    ),
)


SEARCH: Capability[SearchInput, SearchOutput] = Capability(
    name="core.search",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.fields("scope", "scopes"),
    input=SearchInput,
    output=SearchOutput,
    description=(
        "Search the adopted rules of a scope by words, with their evidence. Use it before you "
        "answer a question about how things are done, and before proposing a rule (it may "
        "exist). Returns bundles: the rule in force on as_of (default today) with its status, "
        'date and "still valid?" hint, then its sources, the rest of the mail thread, '
        "attachments, the entities it is about (by their path), the rules it replaced or that "
        "replace it, rules contradicting it and rules about the same entities; line is a "
        "one-line summary. entity narrows the search to rules about that entity or one above "
        'it. When you use a rule, tell the person its date and source and pass on "still '
        'valid?"; say "auto-adopted" for rules marked so, never present a proposed rule as '
        "adopted, and say so when an entry is marked proposed (nobody confirmed its link yet)."
    ),
    handler=handlers.search,
    mcp=McpExposure("search", "Search the rules"),
    http=HttpExposure("POST", "/v1/search"),
    cli=CliExposure(("search",)),
    annotations=Annotations(read_only=True, idempotent=True),
    policies=Policies(benchmark="required"),
    log_operation="search",
)


READ_RULE: Capability[ReadRuleInput, RuleAnswer] = Capability(
    name="core.read_rule",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ReadRuleInput,
    output=RuleAnswer,
    description=(
        "Read one rule by id: its statement, evidence, validity, status and every decision on "
        "it (who adopted, rejected or retracted it, when and why). Use it when a search result "
        'or the person names a rule and you need all of it. Pass on its "still valid?" hint and '
        "its date; if it is superseded, read and cite the successor instead."
    ),
    handler=handlers.read_rule,
    mcp=McpExposure("read_rule", "Read a rule"),
    http=HttpExposure("GET", "/v1/rules/{id}"),
    cli=CliExposure(("rules", "show")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="read_rule",
)


PROVENANCE: Capability[ReadRuleInput, ProvenanceOutput] = Capability(
    name="core.provenance",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ReadRuleInput,
    output=ProvenanceOutput,
    description=(
        "Trace where a rule comes from: who proposed it when, the sources its evidence cites "
        "(with sender, recipients or participants and their day), their attachments, whether "
        "the quote occurs in them, and every decision with date and who. Use it when the person "
        'asks "says who?" or before relying on a rule for something that matters; tell the '
        "person the sources and who decided."
    ),
    handler=handlers.provenance,
    mcp=McpExposure("provenance", "Trace where a rule comes from"),
    http=HttpExposure("GET", "/v1/rules/{id}/provenance"),
    cli=CliExposure(("rules", "provenance")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="provenance",
)


LIST_RULES: Capability[ListRulesInput, RuleList] = Capability(
    name="core.list_rules",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ListRulesInput,
    output=RuleList,
    description=(
        "List the rules of a scope, newest first, filtered by status, by a day their validity "
        "window holds, or by words; 50 per page with the total."
    ),
    handler=handlers.list_rules,
    http=HttpExposure("GET", "/v1/rules"),
    cli=CliExposure(("rules", "list")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_rules",
)


LIST_PROPOSALS: Capability[ScopePageInput, RuleList] = Capability(
    name="core.list_proposals",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ScopePageInput,
    output=RuleList,
    description=(
        "List the proposed rules of a scope that wait for a person, newest first, each with "
        "its approval_url."
    ),
    handler=handlers.list_proposals,
    http=HttpExposure("GET", "/v1/proposals"),
    cli=CliExposure(("rules", "proposals")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_proposals",
)


LIST_REJECTED: Capability[ScopePageInput, RuleList] = Capability(
    name="core.list_rejected",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ScopePageInput,
    output=RuleList,
    description=(
        "List the rejected rules of a scope, newest first, with the person's reason, so that "
        "the same rule is not proposed again."
    ),
    handler=handlers.list_rejected,
    http=HttpExposure("GET", "/v1/rejected"),
    cli=CliExposure(("rules", "rejected")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="list_rejected",
)


PROPOSE_RULE: Capability[ProposeRuleInput, RuleAnswer] = Capability(
    name="core.propose_rule",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=ProposeRuleInput,
    output=RuleAnswer,
    description=(
        "Propose a business rule with its evidence: a quote and refs to stored sources or "
        "attachments (store them first with store_source). Use it when a mail or meeting states "
        "a rule that others should follow; to change a rule, propose the new wording with "
        "supersedes naming the old one, never edit. Returns the rule with its id and status. In "
        "a scope with approval mode person the rule stays proposed until a person adopts it: "
        "tell the person and give the approval_url. In approval mode auto it is adopted at once "
        'and marked auto_adopted: say "auto-adopted" whenever you cite it.'
    ),
    handler=handlers.propose_rule,
    mcp=McpExposure("propose_rule", "Propose a rule"),
    http=HttpExposure("POST", "/v1/rules"),
    cli=CliExposure(("rules", "propose")),
    annotations=Annotations(read_only=False),
    log_operation="propose",
)


RULE_RETRACT: Capability[RetractInput, RuleAnswer] = Capability(
    name="core.rule_retract",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=RetractInput,
    output=RuleAnswer,
    description=(
        "Retract an auto-adopted rule when the person asks you to, with their reason. Only "
        "rules the policy adopted (auto_adopted: true) can be retracted here; a rule a person "
        "adopted is retracted by a person on the approval page, so tell the person that instead. "
        "Returns the rule, now retracted, with its decision history; it no longer answers searches."
    ),
    handler=handlers.rule_retract,
    mcp=McpExposure("rule_retract", "Retract an auto-adopted rule"),
    http=HttpExposure("POST", "/v1/rules/{id}/retract"),
    cli=CliExposure(("rules", "retract")),
    annotations=Annotations(read_only=False, destructive=True),
    log_operation="decide",
)


STORE_SOURCE: Capability[StoreSourceInput, SourceOut] = Capability(
    name="core.store_source",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=StoreSourceInput,
    output=SourceOut,
    description=(
        "Store a mail (id mail:<message-id>), a meeting record (id jamie:<id>) or a note "
        "(note:<id>, dated and signed) with its "
        "attachments, so that rules can cite it as evidence. Use it before propose_rule whenever "
        "the evidence is not stored yet. Storing the same content again changes nothing "
        "(stored: false); different content under an existing id is refused, because evidence "
        "never changes. Returns the source ref and one ref per attachment (attachment/<id>#1…): "
        "cite those refs in propose_rule."
    ),
    handler=handlers.store_source,
    mcp=McpExposure("store_source", "Store a mail or meeting"),
    http=HttpExposure("POST", "/v1/sources"),
    cli=CliExposure(("sources", "store")),
    annotations=Annotations(read_only=False, idempotent=True),
    log_operation="store_source",
)


FEEDBACK: Capability[FeedbackInput, FeedbackOutput] = Capability(
    name="core.feedback",
    kind="command",
    right=Right.PROPOSE,
    tenancy=Tenancy.field("scope"),
    input=FeedbackInput,
    output=FeedbackOutput,
    description=(
        "Record whether one result of a search helped: useful, not-useful, or wrong (false or "
        "outdated). Name the search_id of the answer and one ref it returned. Use it after you "
        "relied on or discarded a result, and always when the person says a rule is wrong; then "
        "offer to propose the correct rule."
    ),
    handler=handlers.feedback,
    mcp=McpExposure("feedback", "Rate a search result"),
    http=HttpExposure("POST", "/v1/feedback"),
    cli=CliExposure(("feedback",)),
    annotations=Annotations(read_only=False),
    log_operation="feedback",
)


EXPORT: Capability[ExportInput, ExportOutput] = Capability(
    name="core.export",
    kind="query",
    right=Right.READ,
    tenancy=Tenancy.field("scope"),
    input=ExportInput,
    output=ExportOutput,
    description=(
        "Export everything a scope holds as JSONL, losslessly: sources, attachments, rules, "
        "decisions, entities with every version, links, reviews and the operation log. An "
        "import of it into an empty scope gives the same export again."
    ),
    handler=handlers.export,
    http=HttpExposure("GET", "/v1/scopes/{scope}/export"),
    cli=CliExposure(("scope", "export")),
    annotations=Annotations(read_only=True, idempotent=True),
    log_operation="export",
)


IMPORT: Capability[ImportInput, ImportOutput] = Capability(
    name="core.import",
    kind="command",
    right=Right.DECIDE,
    tenancy=Tenancy.field("scope"),
    input=ImportInput,
    output=ImportOutput,
    description=(
        "Import an export into an empty scope (a scope holding anything is refused, nothing "
        "is merged): every row is checked as when it was first written, and nothing is "
        "written unless all of it fits. Ids are renamed to the target scope; the indexes "
        "are rebuilt."
    ),
    handler=handlers.import_,
    http=HttpExposure("POST", "/v1/scopes/{scope}/import"),
    cli=CliExposure(("scope", "import")),
    annotations=Annotations(read_only=False),
)

CAPABILITIES: list[Capability[Any, Any]] = [
    LIST_SCOPES,
    STATUS,
    SEARCH,
    READ_RULE,
    PROVENANCE,
    PROPOSE_RULE,
    STORE_SOURCE,
    FEEDBACK,
    RULE_RETRACT,
    LIST_RULES,
    LIST_PROPOSALS,
    LIST_REJECTED,
    EXPORT,
    IMPORT,
]
