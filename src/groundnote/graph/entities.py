"""The agent writers of the entity tree (seed 000 §4): create, move, update.

The only module that inserts into `entity`, and with graph/structure the only one that
inserts into `entity_version`. Each writer runs its checks in the order of §4 inside the
caller's write transaction, so what it checked is what it writes; the database triggers are
the backstop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from groundnote.config import GraphConfig
from groundnote.domain.errors import (
    Cycle,
    DepthLimit,
    DuplicateCandidate,
    NotFound,
    ParentArchived,
    ReasonMissing,
    ReferenceUnknown,
    ScopeMismatch,
    ValidationFailed,
)
from groundnote.domain.ids import format_seq_id
from groundnote.graph import closure, fts
from groundnote.graph.duplicates import similar_entities
from groundnote.graph.normalize import normalize
from groundnote.graph.queries import current, path_items, subtree_depth
from groundnote.graph.resolve import Match
from groundnote.graph.trigram import CHANGE_KIND, TrigramIndex, note_version
from groundnote.store.dialect import dialect_of
from groundnote.store.sql import Connection, Cursor, Row

__all__ = ["Author", "Written", "create_entity", "move_entity", "scope_of", "update_entity"]

MAX_ALIASES = 20


@dataclass(frozen=True)
class Author:
    """Who writes: the channel stored on the version (mcp | api) and the grant."""

    channel: str
    created_by: str  # agent (mcp) | import (api, cli)
    changed_by: str
    at: str
    today: str

    @classmethod
    def of(cls, channel: str, actor: str, at: str, today: str) -> Author:
        # entity_version.channel allows mcp, api, approval: a CLI call is recorded as api.
        stored = "mcp" if channel == "mcp" else "api"
        return cls(stored, "agent" if stored == "mcp" else "import", actor, at, today)


@dataclass
class Written:
    seq: int
    id: str
    changed: bool
    overridden: list[dict[str, Any]] = field(default_factory=list)
    similar: list[dict[str, Any]] = field(default_factory=list)  # elsewhere, shown only
    old_path: list[dict[str, str]] = field(default_factory=list)
    subtree_size: int = 1


def scope_of(entity_id: str) -> str:
    return entity_id.rsplit("-e", 1)[0]


def _seq_of(entity_id: str) -> int | None:
    """The seq an entity id ends in (the store holds them equal); None for no entity id."""
    _, _, digits = entity_id.rpartition("-e")
    return int(digits) if digits.isascii() and digits.isdigit() else None


def candidate(match: Match) -> dict[str, Any]:
    return {
        "id": match.id,
        "name": match.name,
        "type": match.type,
        "status": match.status,
        "aliases": match.aliases,
        "path": match.path,
        "score": match.score,
        "match": match.match,
    }


def _duplicate_next(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    best = found[0]["id"]
    return [
        {
            "tool": "entity_path",
            "arguments": {"scope": scope_of(best), "id": best},
            "why": f"check the place of {best}, then ask the person whether it is the one meant",
        }
    ]


# -- checks ------------------------------------------------------------------------------------


def _check_type(config: GraphConfig, type: str) -> None:
    if type not in config.entity_types:
        raise ValidationFailed(
            f"The entity type {type!r} is not configured for this store.",
            remedy="Use one of: " + ", ".join(config.entity_types) + ".",
            problems=[{"key": "type", "problem": "not a configured entity type"}],
        )


def _check_parent(conn: Connection, scope: str, parent_id: str | None) -> int:
    """The level the parent sits on (0 for the top level) after checking it may take children."""
    return _parent_level(_ask_parent(conn, scope, parent_id), scope, parent_id)


def _ask_parent(conn: Connection, scope: str, parent_id: str | None) -> Cursor | None:
    """Send the question `_parent_level` answers (None: the top level, nothing to ask)."""
    if parent_id is None:
        return None
    _check_parent_scope(scope, parent_id)
    # The parent and its level in one statement.
    return conn.prefetch(
        "SELECT k.name, k.status, (SELECT count(*) FROM entity_closure c "
        "WHERE c.descendant_id = k.id) AS level FROM entity_current k WHERE k.id = ?",
        (parent_id,),
    )


def _check_parent_scope(scope: str, parent_id: str) -> None:
    if scope_of(parent_id) != scope:
        raise ScopeMismatch(f"The parent {parent_id} belongs to another scope than {scope}.")


def _parent_level(asked: Cursor | None, scope: str, parent_id: str | None) -> int:
    if asked is None:
        return 0
    row = asked.fetchone()
    found = None if row is None else _Parent(row["name"], row["status"], row["level"])
    return _placed_parent(found, scope, parent_id)


def _held_parent_level(index: TrigramIndex, scope: str, parent_id: str | None) -> int:
    """`_parent_level` from the index (`_index_holds_all`): it holds every entity's current
    row, archived ones too, by the seq its id ends in."""
    if parent_id is None:
        return 0
    _check_parent_scope(scope, parent_id)
    seq = _seq_of(parent_id)
    held = None if seq is None else index.current([seq]).get(seq)
    found = None
    if held is not None and held.id == parent_id:
        found = _Parent(held.name, held.status, held.level)
    return _placed_parent(found, scope, parent_id)


@dataclass(frozen=True)
class _Parent:
    name: str
    status: str
    level: int  # 1 at the top level


def _placed_parent(found: _Parent | None, scope: str, parent_id: str | None) -> int:
    """The level the parent sits on once it may take children."""
    if found is None:
        raise ReferenceUnknown(
            f"The parent {parent_id} does not exist in scope {scope}.",
            remedy="Find the parent with entity_resolve or entity_tree and use its id.",
            next=[{"tool": "entity_tree", "why": "find the parent"}],
        )
    if found.status == "archived":
        raise ParentArchived(
            f"The parent {parent_id} ({found.name}) is archived and takes no children.",
            next=[{"tool": "entity_resolve", "why": "find an active parent"}],
        )
    return found.level


def _check_depth(config: GraphConfig, deepest: int) -> None:
    if deepest > config.max_depth:
        raise DepthLimit(
            f"The tree would reach level {deepest}; this store allows {config.max_depth}.",
            remedy="Choose a parent higher up in the tree, or ask the operator to raise "
            "graph.max_depth.",
            limit=config.max_depth,
            next=[{"tool": "entity_tree", "why": "find a parent higher up"}],
        )


def _literal_duplicates(
    conn: Connection,
    parent_id: str | None,
    type: str,
    name: str,
    exclude: str | None,
    index: TrigramIndex | None = None,
) -> list[Match]:
    """Same parent, same type, same name case-insensitively, not archived (§4)."""
    return _literal_found(conn, _ask_literal(conn, parent_id, type, name, index), name, exclude)


def _ask_literal(
    conn: Connection, parent_id: str | None, type: str, name: str, index: TrigramIndex | None
) -> Cursor:
    """Send the question of `_literal_duplicates`, which `_literal_found` reads."""
    key = normalize(name)
    if len(key) >= 3:  # the trigram table can only find phrases of three characters or more
        # A name equal to key contains each of its trigrams, so any of them recalls it. The
        # phrase of the whole key reads the doclist of every trigram (the common ones hold tens
        # of thousands of rows); the rarest three, AND-ed, read a few and still recall every
        # duplicate, including rows written earlier in this transaction.
        grams = index.rarest(key, 3) if index is not None else []
        recalled, params = dialect_of(conn).substrings_recall("entity_fts", "name", grams or [key])
    else:
        recalled, params = "SELECT rowid FROM entity_fts WHERE name = ?", [key]
    # One statement: the recalled rowids drive the lookups by primary key.
    return conn.prefetch(
        "SELECT e.seq, k.* FROM entity e JOIN entity_current k ON k.id = e.id "
        f"WHERE e.seq IN ({recalled}) AND k.type = ? AND k.parent_id IS NOT DISTINCT FROM ? "
        "AND k.status <> 'archived'",
        (*params, type, parent_id),
    )


def _index_holds_all(conn: Connection) -> bool:
    """Whether the recall index can answer for this write: it holds what is committed (it
    catches up inside the write, whose lock keeps every other writer out), and this
    transaction has written no entity yet, so what is committed is all there is."""
    return conn.recorded is not None and CHANGE_KIND not in conn.recorded


def _literal_held(
    index: TrigramIndex, parent_id: str | None, type: str, name: str, exclude: str | None
) -> list[Match]:
    """`_literal_duplicates` from the index (`_index_holds_all`): an equal name has an equal
    normalised form, whose entities the index holds by that form."""
    folded = name.strip().casefold()
    out = []
    for _, held in sorted(index.current(index.exact(normalize(name))).items()):
        if (
            held.id != exclude
            and held.type == type
            and held.parent_id == parent_id
            and held.status != "archived"
            and held.name.strip().casefold() == folded
        ):
            out.append(Match.of(held, score=1.0, match="exact").place(held))
    return out


def _literal_found(conn: Connection, asked: Cursor, name: str, exclude: str | None) -> list[Match]:
    folded = name.strip().casefold()
    out = []
    for row in asked.fetchall():
        if row["id"] != exclude and row["name"].strip().casefold() == folded:
            found_match = Match.from_row(row, score=1.0, match="exact", level=0)
            found_match.path = [p.name for p in path_items(conn, row["id"])]
            out.append(found_match)
    return out


def _refuse_literal(found: list[Match], where: str) -> None:
    if found:
        listed = [candidate(m) for m in found[:5]]
        raise DuplicateCandidate(
            f"An entity of this type with this name exists already {where}: {found[0].id}.",
            remedy="Use the existing entity; force does not override a literal duplicate.",
            candidates=listed,
            next=_duplicate_next(listed),
        )


def _similar(
    index: TrigramIndex,
    type: str,
    texts: list[str],
    exclude: str | None,
    parent_id: str | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(refusing, shown) by the rule of graph/duplicates.py: same parent or equal names."""
    found = similar_entities(index, type, texts, exclude, parent_id)
    return [candidate(m) for m in found.refusing], [candidate(m) for m in found.elsewhere]


def _refuse_similar(found: list[dict[str, Any]], force: bool, reason: str | None) -> None:
    if not found:
        return
    if not force:
        raise DuplicateCandidate(
            "Similar entities exist under the same parent or with an equal name: "
            f"{', '.join(c['id'] for c in found)}.",
            candidates=found,
            next=_duplicate_next(found),
        )
    if not reason:
        raise ReasonMissing(
            "force: true needs a reason that says why the new entity is different.",
            remedy="Call again with force: true and a reason naming what the person said.",
            candidates=found,
        )


def _existing(conn: Connection, scope: str, entity_id: str) -> Row:
    if scope_of(entity_id) != scope:
        raise ScopeMismatch(f"The entity {entity_id} belongs to another scope than {scope}.")
    row = current(conn, entity_id)
    if row is None:
        raise NotFound(
            f"The entity {entity_id} does not exist in scope {scope}.",
            next=[{"tool": "entity_resolve", "why": "find the entity by name"}],
        )
    if row["status"] == "archived":
        raise NotFound(
            f"The entity {entity_id} ({row['name']}) is archived and cannot change.",
            remedy="Archived is final; create a new entity if the thing exists again.",
            next=[{"tool": "entity_resolve", "why": "find an active entity"}],
        )
    return row


# -- writers -----------------------------------------------------------------------------------


def create_entity(
    conn: Connection,
    index: TrigramIndex,
    config: GraphConfig,
    scope: str,
    author: Author,
    *,
    type: str,
    name: str,
    aliases: list[str],
    parent_id: str | None,
    evidence: str | None = None,
    reason: str | None = None,
    force: bool = False,
    similar_check: bool = True,
) -> Written:
    """Create one entity. `similar_check=False` is for bulk loads of a trusted set (the
    benchmark's generator): the literal duplicate check and every database check still run."""
    _check_type(config, type)
    # The checks' questions go out together, then are answered in §4's order: on PostgreSQL
    # one round trip for all of them instead of one each. The index answers the parent's and
    # the literal check as well where it may (two statements fewer, one of them a scan of
    # names on PostgreSQL); a bulk load leaves the index alone.
    held = similar_check and _index_holds_all(conn)
    parent = None if held else _ask_parent(conn, scope, parent_id)
    literal = None if held else _ask_literal(conn, parent_id, type, name, index)
    next_seq = conn.prefetch("SELECT coalesce(max(seq), 0) + 1 FROM entity")
    if similar_check:
        # Caught up before this write adds rows of its own, which the index must not take
        # for committed ones; its question for the data version brings the other answers.
        index.warm()
    level = (
        _held_parent_level(index, scope, parent_id)
        if held
        else _parent_level(parent, scope, parent_id)
    )
    _check_depth(config, level + 1)
    _refuse_literal(
        _literal_held(index, parent_id, type, name, None)
        if literal is None
        else _literal_found(conn, literal, name, None),
        "under this parent",
    )
    seq = next_seq.fetchone()[0]
    entity_id = format_seq_id(scope, "e", seq)
    conn.execute(
        "INSERT INTO entity (seq, id, scope, created_at, created_by) VALUES (?, ?, ?, ?, ?)",
        (seq, entity_id, scope, author.at, author.created_by),
    )
    conn.execute(
        "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, "
        "valid_from, valid_to, evidence, change, channel, changed_by, changed_at, reason) "
        "VALUES (?, 1, ?, ?, ?, ?, 'unconfirmed', ?, NULL, ?, 'create', ?, ?, ?, ?)",
        (
            entity_id,
            type,
            name.strip(),
            json.dumps(_unique(aliases), ensure_ascii=False),
            parent_id,
            author.today,
            evidence,
            author.channel,
            author.changed_by,
            author.at,
            (reason or "").strip() or f"created via {author.channel}",
        ),
    )
    closure.on_create(conn, entity_id, parent_id)
    fts.add_text(conn, seq, name, _unique(aliases))
    # The similar check, which refuses last, is computed once the rows are on their way: on
    # PostgreSQL the database writes them meanwhile, where it had waited for the check. A
    # refusal rolls them back with the write.
    overridden, similar = (
        _similar(index, type, [name, *aliases], None, parent_id) if similar_check else ([], [])
    )
    _refuse_similar(overridden, force, reason)
    return Written(
        seq=seq,
        id=entity_id,
        changed=True,
        overridden=overridden if force else [],
        similar=similar,
    )


def move_entity(
    conn: Connection,
    config: GraphConfig,
    scope: str,
    author: Author,
    *,
    entity_id: str,
    parent_id: str | None,
    evidence: str | None = None,
    reason: str | None = None,
) -> Written:
    row = _existing(conn, scope, entity_id)
    parent_level = _check_parent(conn, scope, parent_id)
    size = conn.execute(
        "SELECT count(*) FROM entity_closure WHERE ancestor_id = ?", (entity_id,)
    ).fetchone()[0]
    old_path = [p.model_dump() for p in path_items(conn, entity_id)]
    if row["parent_id"] == parent_id:
        return Written(row["seq"], entity_id, False, old_path=old_path, subtree_size=size)
    if (
        parent_id is not None
        and conn.execute(
            "SELECT 1 FROM entity_closure WHERE ancestor_id = ? AND descendant_id = ?",
            (entity_id, parent_id),
        ).fetchone()
    ):
        raise Cycle(
            f"{parent_id} lies inside the subtree of {entity_id}; it cannot become its parent.",
            paths={
                "entity": old_path,
                "target": [p.model_dump() for p in path_items(conn, parent_id)],
            },
            next=[{"tool": "entity_path", "why": f"check the place of {parent_id}"}],
        )
    _check_depth(config, parent_level + 1 + subtree_depth(conn, entity_id))
    _refuse_literal(
        _literal_duplicates(conn, parent_id, row["type"], row["name"], entity_id),
        "under the new parent",
    )
    _next_version(
        conn,
        row,
        author,
        "move",
        parent_id,
        row["name"],
        row["aliases"],
        evidence,
        (reason or "").strip() or f"moved via {author.channel}",
    )
    closure.on_move(conn, entity_id, parent_id)
    return Written(row["seq"], entity_id, True, old_path=old_path, subtree_size=size)


def update_entity(
    conn: Connection,
    index: TrigramIndex,
    scope: str,
    author: Author,
    *,
    entity_id: str,
    name: str | None,
    aliases_add: list[str],
    aliases_remove: list[str],
    evidence: str | None = None,
    reason: str | None = None,
    force: bool = False,
) -> Written:
    row = _existing(conn, scope, entity_id)
    aliases: list[str] = json.loads(row["aliases"])
    missing = [a for a in aliases_remove if a not in aliases]
    if missing:
        raise ValidationFailed(
            f"{entity_id} has no alias {missing[0]!r}.",
            remedy="Remove only aliases the entity has: " + (", ".join(aliases) or "none") + ".",
            problems=[
                {"key": "aliases_remove", "problem": f"unknown alias {m!r}"} for m in missing
            ],
        )
    kept = [a for a in aliases if a not in aliases_remove]
    added = [a for a in _unique(aliases_add) if a not in kept]
    new_aliases = kept + added
    if len(new_aliases) > MAX_ALIASES:
        raise ValidationFailed(
            f"{entity_id} would have {len(new_aliases)} aliases; at most {MAX_ALIASES}.",
            remedy="Remove aliases that are no longer used in the same call.",
        )
    new_name = name.strip() if name is not None else row["name"]
    if new_name == row["name"] and new_aliases == aliases:
        return Written(row["seq"], entity_id, False)
    if new_name != row["name"]:
        _refuse_literal(
            _literal_duplicates(conn, row["parent_id"], row["type"], new_name, entity_id, index),
            "under the same parent",
        )
    texts = ([new_name] if new_name != row["name"] else []) + added
    overridden, similar = (
        _similar(index, row["type"], texts, entity_id, row["parent_id"]) if texts else ([], [])
    )
    _refuse_similar(overridden, force, reason)
    _next_version(
        conn,
        row,
        author,
        "update",
        row["parent_id"],
        new_name,
        json.dumps(new_aliases, ensure_ascii=False),
        evidence,
        (reason or "").strip() or f"updated via {author.channel}",
    )
    fts.put_text(conn, row["seq"], new_name, new_aliases)
    return Written(
        row["seq"], entity_id, True, overridden=overridden if force else [], similar=similar
    )


def _next_version(
    conn: Connection,
    row: Row,
    author: Author,
    change: str,
    parent_id: str | None,
    name: str,
    aliases: str,
    evidence: str | None,
    reason: str,
) -> None:
    # The status is copied from the current version: agents never change it (trigger backstop),
    # and never write after an archive (the WHERE writes nothing then).
    conn.execute(
        "INSERT INTO entity_version (id, version, type, name, aliases, parent_id, status, "
        "valid_from, valid_to, evidence, change, channel, changed_by, changed_at, reason) "
        "SELECT id, version + 1, type, ?, ?, ?, status, valid_from, valid_to, ?, ?, ?, ?, ?, ? "
        "FROM entity_version WHERE id = ? AND version = ? "
        "AND status IN ('active', 'unconfirmed')",
        (
            name,
            aliases,
            parent_id,
            evidence,
            change,
            author.channel,
            author.changed_by,
            author.at,
            reason,
            row["id"],
            row["version"],
        ),
    )
    # Besides a rename's text write (which records it too): a move changes the parent.
    note_version(conn, row["seq"])


def _unique(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item.strip(), None)
    return list(seen)
