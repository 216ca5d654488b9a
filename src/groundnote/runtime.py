"""The composition root: which subsystems live in which file, and which capabilities exist.

Every surface starts from `open_runtime(home)`. A new subsystem adds its `SUBSYSTEM` (tables),
its `CAPABILITIES` and `PROMPTS` here and touches no surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from groundnote import context, core, graph, impulses, knowledge
from groundnote.auth import Principal, authenticate, presented_principal
from groundnote.capabilities import Capability, LogAs, Registry, Services
from groundnote.capabilities.keys import CALL_KEYS, CALLS_SUBSYSTEM
from groundnote.config import Config, load_config
from groundnote.domain.clock import Clock, SystemClock
from groundnote.domain.progress import Progress
from groundnote.store import Home, Subsystem, changes, load_migrations
from groundnote.store.migrate import MigrateSpec
from groundnote.store.transfer import Transfer

__all__ = [
    "INSTANCE_SUBSYSTEMS",
    "MIGRATE_SPEC",
    "SCOPE_SUBSYSTEMS",
    "SCOPE_TRANSFER",
    "Runtime",
    "build_registry",
    "compose_search",
    "open_runtime",
]

INSTANCE_SUBSYSTEMS = [
    Subsystem("instance", load_migrations("groundnote.store", "instance")),
    Subsystem("auth", load_migrations("groundnote.auth", "auth")),
    impulses.SUBSYSTEM,
    *context.INSTANCE_SUBSYSTEMS,
]
SCOPE_SUBSYSTEMS = [
    changes.SUBSYSTEM,
    core.SUBSYSTEM,
    graph.SUBSYSTEM,
    knowledge.SUBSYSTEM,
    CALLS_SUBSYSTEM,
]

# Everything a scope file holds that is truth, in the order an import writes it (docs/export.md).
# Not in it, because rebuilt: the closure, the full-text indexes, rule_evidence, the change
# record, the knowledge index (a projection of a checkout) and the migration ledger.
SCOPE_TRANSFER = Transfer(
    format="groundnote-scope",
    version=2,
    owner_key="scope",
    tables=(*core.transfer.TRUTH, *graph.transfer.TABLES, *core.transfer.LOG, CALL_KEYS),
    finish=(core.transfer.finish, graph.transfer.finish),
    reads=(("groundnote-core", 1),),
)


# What `groundnote migrate` moves into PostgreSQL (store/migrate.py): every scope through its
# transfer, plus the scope tables a transfer leaves out but a move keeps, because rebuilding
# them costs (the embeddings) or needs the bound checkout (the knowledge index); the
# instance's impulses per organisation through theirs, its other tables row for row.
MIGRATE_SPEC = MigrateSpec(
    instance_subsystems=INSTANCE_SUBSYSTEMS,
    scope_subsystems=SCOPE_SUBSYSTEMS,
    scope_transfer=SCOPE_TRANSFER,
    scope_kept=("text_vector", "entity_vector", *knowledge.INDEX_TABLES),
    instance_transfers=(impulses.IMPULSES_TRANSFER,),
)


def compose_search() -> core.SearchComposition:
    """Core's search with the graph's groups, head.entities and entity filter (seed 000 §11).

    A value built here and handed to the search handler through its context, never state kept
    in a module: each runtime has its own, and importing a module changes nothing.
    """
    return core.SearchComposition(
        providers=(*core.CORE_GROUPS, *graph.GROUP_PROVIDERS),
        enrichers=(graph.head_entities,),
        entity_filter=graph.entity_filter,
    )


def build_registry(search: core.SearchComposition | None = None) -> Registry:
    return Registry(
        [
            *core.CAPABILITIES,
            *graph.CAPABILITIES,
            *knowledge.CAPABILITIES,
            *impulses.CAPABILITIES,
            *context.CAPABILITIES,
        ],
        prompts=graph.PROMPTS,
        services=Services(search or compose_search(), SCOPE_TRANSFER),
    )


@dataclass
class Runtime:
    home: Home
    config: Config
    registry: Registry

    def invoke(
        self,
        cap: Capability[Any, Any],
        raw: Any,
        *,
        principal: Principal | None,
        channel: str,
        progress: Progress | None = None,
        log_as: LogAs | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> BaseModel:
        return self.registry.invoke(
            self.home,
            self.config,
            cap,
            raw,
            principal=principal,
            channel=channel,
            progress=progress,
            log_as=log_as,
            meta=meta,
        )

    def warm(self, scopes: list[str] | None = None) -> None:
        """Build what a scope's first calls would otherwise wait for: its resolve index.

        Servers call it on a background thread at start; `scopes` limits it to a grant's.
        """
        for scope in scopes if scopes is not None else self.home.scope_names():
            if not graph.resolve_has_room():
                break  # the budget is full: the other scopes are built on their first use
            graph.warm_resolve(self.home.scope_db(scope))

    def authenticate(self, token: str | None) -> Principal | None:
        return authenticate(self.home.instance, token, self.config.auth, self.home.clock.instant())

    def presented(self, token: str | None) -> Principal | None:
        """None without a token; raises auth-required (unknown, revoked or expired) for a
        token that no live grant has, so a wrong token never reads like a missing one."""
        return presented_principal(
            self.home.instance, token, self.config.auth, self.home.clock.instant()
        )

    def close(self) -> None:
        self.home.close()


def open_runtime(
    home: Path,
    *,
    clock: Clock | None = None,
    environ: dict[str, str] | None = None,
    database_url: str | None = None,
) -> Runtime:
    """Open (and on first use create) a home; raises ConfigError for a bad groundnote.json.

    The store is SQLite files in the home unless `database.url` (or GROUNDNOTE_DATABASE_URL,
    or `database_url` here, from `--database-url`) names a PostgreSQL database."""
    config = load_config(home, environ, database_url=database_url)
    opened = Home(
        home,
        clock or SystemClock(),
        instance_subsystems=INSTANCE_SUBSYSTEMS,
        scope_subsystems=SCOPE_SUBSYSTEMS,
        busy_timeout=config.store.busy_timeout_seconds,
        database_url=config.database.url,
        pool_size=config.database.pool_size,
    )
    graph.set_resolve_budget(config.resolve.index_budget_entities)
    return Runtime(home=opened, config=config, registry=build_registry())
