"""The project store `.groundnote/work/store.db`: one file, one handle, many subsystems.

`ProjectDB.open` opens the shared `store.Database` (its FIFO write gate serves every writer in
arrival order), runs each subsystem's own migration ledger and hands each its interface.
The file is a projection of the committed sources, except the unit state staged since the
last `groundnote context commit`: deleting the file loses exactly that, everything else
rebuilds with `groundnote context up`. `work/cache/` beside it is free to delete; `work/vault/`
holds withheld originals and is never rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from groundnote.context import (
    blockcache,
    graphstore,
    memorystore,
    termstore,
    voicestore,
    workingset,
)
from groundnote.context.blockcache import BlockCache
from groundnote.context.graphstore import GraphStore
from groundnote.context.locales import canonical, is_canonical
from groundnote.context.memorystore import MemoryStore
from groundnote.context.termstore import TermStore
from groundnote.context.voicestore import VoiceStore
from groundnote.context.workingset import WorkingSet
from groundnote.domain.clock import Clock
from groundnote.store import Database, SqliteDatabase, migrate

__all__ = [
    "SUBSYSTEMS",
    "NonCanonicalLocale",
    "ProjectDB",
    "open_database",
    "sidecar_path",
    "store_path",
]

SUBSYSTEMS = [
    blockcache.SUBSYSTEM,
    termstore.SUBSYSTEM,
    memorystore.SUBSYSTEM,
    voicestore.SUBSYSTEM,
    workingset.SUBSYSTEM,
    graphstore.SUBSYSTEM,
]


def open_database(path: Path) -> Database:
    """A handle on a store file; handles on one file share its FIFO gate (`store.gate_for`).

    Each call opens its own handle: the file may be deleted between calls, which is how a
    rebuild starts.
    """
    return SqliteDatabase(path)


def store_path(project_dir: Path) -> Path:
    return project_dir / ".groundnote" / "work" / "store.db"


def sidecar_path(project_dir: Path) -> Path:
    """Where the store-less (browser) build keeps its graph: beside store.db."""
    return project_dir / ".groundnote" / "work" / "store.json"


@dataclass(frozen=True)
class NonCanonicalLocale:
    subsystem: str
    locale: str  # as stored
    canonical: str | None  # what it should be; None when the stored key does not parse


class ProjectDB:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.blocks = BlockCache(db)
        self.terms = TermStore(db)
        self.memory = MemoryStore(db)
        self.voices = VoiceStore(db)
        self.working_set = WorkingSet(db)
        self.graph = GraphStore(db)

    @classmethod
    def open(cls, project_dir: Path, clock: Clock) -> ProjectDB:
        """Open (creating on first use) and migrate every subsystem's ledger."""
        path = store_path(project_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        db = open_database(path)
        for subsystem in SUBSYSTEMS:
            migrate(db, subsystem.name, list(subsystem.migrations), clock.instant())
        return cls(db)

    @classmethod
    def peek(cls, project_dir: Path) -> ProjectDB | None:
        """The existing store as it is, never created nor migrated (for `up --plan`, `status`)."""
        path = store_path(project_dir)
        return cls(open_database(path)) if path.is_file() else None

    def store_missing(self) -> bool:
        """Drift reads "store missing" from the block cache, not from the file's existence."""
        return self.blocks.block_count() == 0

    def non_canonical_locales(self) -> list[NonCanonicalLocale]:
        """Rows keyed by a spelling written before the stores normalised: no lookup finds them."""
        found = []
        for subsystem, locales in (
            ("blockcache", self.blocks.locales()),
            ("terms", self.terms.locales()),
            ("memory", self.memory.locales()),
            ("workingset", self.working_set.variants()),
        ):
            for locale in locales:
                if locale and not is_canonical(locale):
                    found.append(NonCanonicalLocale(subsystem, locale, _try_canonical(locale)))
        return found

    def close(self) -> None:
        self.db.close()


def _try_canonical(locale: str) -> str | None:
    try:
        return canonical(locale)
    except ValueError:
        return None
