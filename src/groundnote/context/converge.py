"""`groundnote context up`: converge the project store from the committed sources.

Every subsystem is a projection, so `up` computes what the sources say and makes each store
hold exactly that: extraction first (only documents whose fingerprint changed are parsed),
then the terms, the working set's committed rows and, after extraction has committed, the
graph of the project's scope. `plan` reads the same difference and creates nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundnote.context.blocks import discover, document_key, fingerprint, parse_document
from groundnote.context.materialize import materialize, project_scope
from groundnote.context.projectdb import NonCanonicalLocale, ProjectDB
from groundnote.context.recipe import RECIPE_FILE, Recipe, load_recipe
from groundnote.context.seeds import MemoryEntry, VoiceProfile, load_memory, load_voices
from groundnote.context.sourcefile import source_error
from groundnote.context.sources import StateRecord, TermsSource, load_state, load_terms
from groundnote.domain.clock import Clock
from groundnote.domain.progress import Progress

__all__ = ["Change", "Sources", "UpResult", "plan", "read_sources", "up"]

# Documents parsed and written per write transaction: few enough that neither memory nor
# the write gate holds a whole project, many enough that a transaction's cost is spread.
DOCUMENTS_PER_BATCH = 500


@dataclass(frozen=True)
class Sources:
    recipe: Recipe
    documents: dict[str, tuple[str, ...]]  # path → collections
    terms: TermsSource
    memory: list[MemoryEntry]
    voices: dict[str, VoiceProfile]
    state: list[StateRecord]


@dataclass(frozen=True)
class Change:
    subsystem: str
    add: int
    change: int
    remove: int

    @property
    def any(self) -> bool:
        return bool(self.add or self.change or self.remove)


@dataclass(frozen=True)
class UpResult:
    changes: list[Change]
    blocks: int
    nodes: int
    edges: int
    staged: int
    non_canonical: list[NonCanonicalLocale]


def read_sources(project_dir: Path) -> Sources:
    """Parse every source before the store is touched, so a bad file changes nothing."""
    recipe = load_recipe(project_dir)
    voices = load_voices(project_dir)
    if recipe.voice is not None and recipe.voice.profile not in voices:
        known = ", ".join(sorted(voices)) or "none"
        raise source_error(
            project_dir / RECIPE_FILE,
            "voice.profile",
            f"no voice profile {recipe.voice.profile!r} (profiles: {known}); add "
            f"profiles/{recipe.voice.profile}/voice.yaml or bind an existing one",
        )
    return Sources(
        recipe=recipe,
        documents=discover(project_dir, recipe),
        terms=load_terms(project_dir / recipe.defaults.terms_source),
        memory=load_memory(project_dir, recipe.defaults.memory_source),
        voices=voices,
        state=load_state(project_dir),
    )


def _term_rows(source: TermsSource) -> set[tuple[object, ...]]:
    return {
        (c.id, t.locale, t.text, t.status, t.valid_from, t.valid_to, t.market)
        for c in source.concepts
        for t in c.terms
    } | {(c.id,) for c in source.concepts}


def _diff(subsystem: str, want: Mapping[Any, object], have: Mapping[Any, object]) -> Change:
    return Change(
        subsystem,
        add=sum(1 for k in want if k not in have),
        change=sum(1 for k, v in want.items() if k in have and have[k] != v),
        remove=sum(1 for k in have if k not in want),
    )


def _fingerprints(project_dir: Path, sources: Sources) -> dict[str, str]:
    return {p: fingerprint(project_dir, p, c) for p, c in sources.documents.items()}


def _changes(sources: Sources, prints: dict[str, str], store: ProjectDB | None) -> list[Change]:
    have_prints = store.blocks.fingerprints() if store else {}
    want_terms = dict.fromkeys(_term_rows(sources.terms), True)
    have_terms = dict.fromkeys(_term_rows(store.terms.source()), True) if store else {}
    want_memory = {e.source_key: e for e in sources.memory}
    have_memory = {e.source_key: e for e in store.memory.entries()} if store else {}
    have_voices = store.voices.profiles() if store else {}
    want_state = {r.key: r for r in sources.state}
    have_state = {r.key: r for r in store.working_set.records(staged=False)} if store else {}
    return [
        _diff("blockcache", prints, have_prints),
        _diff("terms", want_terms, have_terms),
        _diff("memory", want_memory, have_memory),
        _diff("voice", sources.voices, have_voices),
        _diff("workingset", want_state, have_state),
    ]


def plan(project_dir: Path) -> tuple[list[Change], list[NonCanonicalLocale]]:
    """What `up` would change, per subsystem; reads the store as it is and creates nothing."""
    sources = read_sources(project_dir)
    store = ProjectDB.peek(project_dir)
    try:
        changes = _changes(sources, _fingerprints(project_dir, sources), store)
        report = store.non_canonical_locales() if store else []
    finally:
        if store is not None:
            store.close()
    return changes, report


def up(project_dir: Path, clock: Clock, *, progress: Progress | None = None) -> UpResult:
    """Converge the store; returns what changed and what the store now holds.

    `progress` hears the phase "documents" (changed documents written of all changed),
    then the graph's phases (see `materialize`), each from 0 to its total.
    """
    sources = read_sources(project_dir)
    store = ProjectDB.open(project_dir, clock)
    try:
        return _converge(project_dir, sources, store, progress or _silent)
    finally:
        store.close()


def _silent(phase: str, done: int, total: int) -> None:
    """Nobody is listening."""


def _converge(
    project_dir: Path, sources: Sources, store: ProjectDB, progress: Progress
) -> UpResult:
    prints = _fingerprints(project_dir, sources)
    changes = _changes(sources, prints, store)
    _extract(project_dir, sources, prints, store, progress)
    changed = {c.subsystem for c in changes if c.any}
    if "terms" in changed:
        store.terms.replace(sources.terms)
    if "memory" in changed:
        store.memory.replace(sources.memory)
    if "voice" in changed:
        store.voices.replace(sources.voices)
    if "workingset" in changed:
        store.working_set.load_committed(sources.state)
    states = [(r, False) for r in store.working_set.records(staged=False)]
    states += [(r, True) for r in store.working_set.records(staged=True)]
    vocabulary = store.terms.source()
    materialize(sources.recipe, store.blocks, store.graph, vocabulary, states, progress)
    scope = project_scope(sources.recipe)
    return UpResult(
        changes=changes,
        blocks=store.blocks.block_count(),
        nodes=store.graph.count_nodes(scope),
        edges=store.graph.count_edges(scope),
        staged=len(store.working_set.records(staged=True)),
        non_canonical=store.non_canonical_locales(),
    )


def _extract(
    project_dir: Path,
    sources: Sources,
    prints: dict[str, str],
    store: ProjectDB,
    progress: Progress,
) -> None:
    """Write the changed documents, a batch per transaction, and drop the removed ones.

    Each batch commits documents with their fingerprints, so a run cut short (or stopped
    by a target file it cannot read) leaves the rest changed and the next run writes them.
    Keys are checked for clashes before the first write, from each source's frontmatter
    alone: a clash, or a source that cannot be read, changes nothing.
    """
    stored = store.blocks.fingerprints()
    todo = [p for p in sorted(prints) if stored.get(p) != prints[p]]
    fresh = {path: document_key(project_dir, path) for path in todo}
    _check_keys(project_dir, sources, fresh, store)
    removed = [p for p in stored if p not in sources.documents]
    # A graph never built (or whose full pass was cut short) gets a full pass next, which
    # reads every block: there is no pass to tell which blocks changed.
    feed = store.graph.built_from(project_scope(sources.recipe)) is not None
    total = len(todo) + len(removed)
    progress("documents", 0, total)
    first = sorted({*removed, *_key_holders(fresh, store)})
    if first:
        store.blocks.apply([], first, feed=feed)
    done = len(removed)
    if removed:
        progress("documents", done, total)
    for start in range(0, len(todo), DOCUMENTS_PER_BATCH):
        batch = todo[start : start + DOCUMENTS_PER_BATCH]
        store.blocks.apply(
            [parse_document(project_dir, p, sources.documents[p], prints[p]) for p in batch],
            [],
            feed=feed,
        )
        done += len(batch)
        progress("documents", done, total)


def _key_holders(fresh: dict[str, str], store: ProjectDB) -> set[str]:
    """Documents whose stored key another document now claims (a key moved between two).

    They are dropped before any batch writes: the claimant may come in an earlier batch
    than the holder, and the store holds each key once.
    """
    claimant = {key: path for path, key in fresh.items()}
    return {
        path
        for path, key in store.blocks.document_keys().items()
        if claimant.get(key, path) != path
    }


def _check_keys(
    project_dir: Path, sources: Sources, fresh: dict[str, str], store: ProjectDB
) -> None:
    """Two documents may not claim one durable key: the working set could not tell them apart."""
    keys = {p: k for p, k in store.blocks.document_keys().items() if p in sources.documents}
    keys.update(fresh)
    owner: dict[str, str] = {}
    for path, key in sorted(keys.items()):
        if key in owner:
            raise source_error(
                project_dir / path, "key", f"document key {key!r} is also used by {owner[key]}"
            )
        owner[key] = path
