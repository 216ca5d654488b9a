"""The SQLite property graph: the project store's `EdgeReader`, `NodeFinder` and writer."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from groundnote.context.presence import has_table
from groundnote.context.vocabulary import (
    INSTANCE_LABELS,
    VOCABULARY_LABELS,
    Edge,
    EdgeLabel,
    Node,
    NodeLabel,
    Scope,
    node_id,
)
from groundnote.context.window import Window
from groundnote.store import Database, Subsystem, load_migrations
from groundnote.store.dialect import SQLITE, Dialect, dialect_of
from groundnote.store.sql import Connection, Row

__all__ = ["SUBSYSTEM", "GraphStore", "Owned"]

SUBSYSTEM = Subsystem("graph", load_migrations("groundnote.context.graphstore", "graph"))


def _node(row: Row) -> Node:
    scope = Scope(row["workspace"] or "", row["project"] or "", row["stream"] or "")
    return Node(row["id"], row["label"], scope, row["local"], json.loads(row["props"]))


def _edge(row: Row) -> Edge:
    window = Window(valid_from=row["valid_from"], valid_to=row["valid_to"])
    return Edge(
        row["src"], row["label"], row["dst"], row["discriminator"], window, json.loads(row["props"])
    )


_NODE_COLUMNS = "id, label, workspace, project, stream, local, props"
_EDGE_COLUMNS = "src, label, dst, discriminator, valid_from, valid_to, props"


# Properties are stored in one canonical spelling, so "changed" is a text comparison.
_PROPS = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _node_row(n: Node) -> tuple[object, ...]:
    return (n.id, n.label, *_dims(n.scope), n.local, _PROPS.encode(n.props))


def _edge_row(e: Edge) -> tuple[object, ...]:
    return (
        e.src,
        e.label,
        e.dst,
        e.discriminator,
        e.window.valid_from,
        e.window.valid_to,
        _PROPS.encode(e.props),
    )


def _scope_key(scope: Scope) -> str:
    return json.dumps([scope.workspace, scope.project, scope.stream])


def _dims(scope: Scope) -> tuple[str | None, str | None, str | None]:
    return (scope.workspace or None, scope.project or None, scope.stream or None)


@dataclass(frozen=True)
class Owned:
    """The rows one write of a pass is entitled to: it makes them equal to what it is given.

    `nodes` and `edges` are WHERE clauses over `graph_nodes` and `graph_edges` with named
    parameters from `args`. Vocabulary nodes are never owned: a write upserts those it is
    given, and `finish_build` drops the unused ones.
    """

    nodes: str
    edges: str
    args: dict[str, object]

    @classmethod
    def scope(
        cls, scope: Scope, blocks: Collection[str] | None = None, dialect: Dialect = SQLITE
    ) -> Owned:
        """Every instance node of the scope (with `blocks`, only those of its block nodes) and
        every edge leaving them."""
        nodes = (
            f"label IN ({_INSTANCE}) AND {_IN_SCOPE} "
            f"AND (:all_blocks = 1 OR label <> 'block' OR id IN ({dialect.json_values(':blocks')}))"
        )
        args = {
            **_scope_args(scope),
            "all_blocks": blocks is None,
            "blocks": json.dumps(list(blocks or [])),
        }
        return cls(nodes, f"src IN (SELECT id FROM graph_nodes WHERE {nodes})", args)

    @classmethod
    def labelled(cls, scope: Scope, label: NodeLabel) -> Owned:
        """The scope's nodes of one instance label and every edge leaving them."""
        nodes = f"label = :label AND {_IN_SCOPE}"
        args = {**_scope_args(scope), "label": label}
        return cls(nodes, f"src IN (SELECT id FROM graph_nodes WHERE {nodes})", args)

    @classmethod
    def blocks(cls, scope: Scope, after: str | None, through: str | None) -> Owned:
        """The scope's block nodes with ids in (`after`, `through`] (None: open) and every
        edge leaving them."""
        low, high = _bounds("block", scope, after, through)
        return cls(
            "id > :low AND id <= :high AND label = 'block'",
            "src > :low AND src <= :high",
            {"low": low, "high": high},
        )


_IN_SCOPE = (
    "workspace IS NOT DISTINCT FROM :ws AND project IS NOT DISTINCT FROM :project "
    "AND stream IS NOT DISTINCT FROM :stream"
)
_INSTANCE = ", ".join(f"'{label}'" for label in INSTANCE_LABELS)


def _scope_args(scope: Scope) -> dict[str, object]:
    ws, project, stream = _dims(scope)
    return {"ws": ws, "project": project, "stream": stream}


def _bounds(
    label: NodeLabel, scope: Scope, after: str | None, through: str | None
) -> tuple[str, str]:
    """An id range inside one label and scope. Every id there starts `<label>:<dims>:`, and
    the escaped dims hold neither ':' nor ';', so the prefix itself bounds the range below
    and the prefix with its ':' turned ';' bounds it above."""
    prefix = node_id(label, scope)
    return after or prefix, through or prefix[:-1] + ";"


# Nodes deleted per write transaction when a scope is dropped (each takes its edges along).
_DROP_BATCH = 5_000


def _replace(conn: Connection, owned: Owned, nodes: list[Node], edges: Iterable[Edge]) -> None:
    """Write the difference between what `owned` selects and `nodes` and `edges`."""
    want_nodes = {n.id: _node_row(n) for n in nodes}
    want_edges = {e.key: _edge_row(e) for e in edges}
    have_nodes = {
        r[0]: tuple(r)
        for r in conn.execute(
            f"SELECT {_NODE_COLUMNS} FROM graph_nodes WHERE {owned.nodes}", owned.args
        )
    }
    vocabulary = json.dumps([n.id for n in nodes if n.label in VOCABULARY_LABELS])
    have_nodes.update(
        (r[0], tuple(r))
        for r in conn.execute(
            f"SELECT {_NODE_COLUMNS} FROM graph_nodes "
            f"WHERE id IN ({dialect_of(conn).json_values('?')})",
            (vocabulary,),
        )
    )
    have_edges = {
        tuple(r[:4]): tuple(r)
        for r in conn.execute(
            f"SELECT {_EDGE_COLUMNS} FROM graph_edges WHERE {owned.edges}", owned.args
        )
    }
    conn.executemany(
        "DELETE FROM graph_edges WHERE src = ? AND label = ? AND dst = ? AND discriminator = ?",
        [k for k in have_edges if k not in want_edges],
    )
    conn.executemany(
        "DELETE FROM graph_nodes WHERE id = ?",
        [
            (i,)
            for i, row in have_nodes.items()
            if i not in want_nodes and row[1] in INSTANCE_LABELS
        ],
    )
    conn.executemany(
        f"INSERT INTO graph_nodes ({_NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET props = excluded.props",
        [want_nodes[i] for i in sorted(want_nodes) if have_nodes.get(i) != want_nodes[i]],
    )
    conn.executemany(
        f"INSERT INTO graph_edges ({_EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (src, label, dst, discriminator) DO UPDATE SET "
        "valid_from = excluded.valid_from, valid_to = excluded.valid_to, "
        "props = excluded.props",
        [want_edges[k] for k in sorted(want_edges) if have_edges.get(k) != want_edges[k]],
    )


def _drop_unused_vocabulary(conn: Connection, scope: Scope, declared: Collection[str]) -> None:
    conn.execute(
        "DELETE FROM graph_nodes WHERE label IN (?, ?) AND workspace IS NOT DISTINCT FROM ? "
        f"AND id NOT IN ({dialect_of(conn).json_values('?')}) "
        "AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.dst = graph_nodes.id)",
        (*VOCABULARY_LABELS, _dims(scope)[0], json.dumps(list(declared))),
    )


def _mark_built(conn: Connection, scope: Scope, source_digest: str) -> None:
    conn.execute(
        "INSERT INTO graph_builds (scope_key, source_digest) VALUES (?, ?) "
        "ON CONFLICT (scope_key) DO UPDATE SET source_digest = excluded.source_digest",
        (_scope_key(scope), source_digest),
    )


class GraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- the writer ----------------------------------------------------------------------------

    def replace_scope(
        self,
        scope: Scope,
        nodes: Iterable[Node],
        edges: Iterable[Edge],
        *,
        blocks: Collection[str] | None = None,
        source_digest: str | None = None,
    ) -> None:
        """Make the graph hold exactly `nodes` and `edges` for what the pass is entitled to.

        A pass owns the instance nodes of its (workspace, project, stream), and with them
        every edge (each edge starts at an instance node); with `blocks`, it owns only those
        block nodes and leaves the scope's other blocks as they are. Vocabulary nodes are
        shared: they are upserted, and one is dropped only when nothing uses it and this pass
        no longer declares it. Only the difference is written, so a pass that changes little
        writes little; the result is the same as clearing what it owns and writing it whole.
        `source_digest` records what the pass was built from (see `built_from`).
        """
        nodes = list(nodes)
        declared = [n.id for n in nodes if n.label in VOCABULARY_LABELS]
        with self.db.write() as conn:
            _replace(conn, Owned.scope(scope, blocks, dialect_of(conn)), nodes, edges)
            _drop_unused_vocabulary(conn, scope, declared)
            if source_digest is not None:
                _mark_built(conn, scope, source_digest)

    def replace(self, owned: Owned, nodes: Iterable[Node], edges: Iterable[Edge]) -> None:
        """One write of a pass in parts: the rows `owned` selects become `nodes` and `edges`.

        The parts of a pass must write a node before an edge that reaches it. Between
        `forget_build` and `finish_build` the scope reads as not built, so a pass cut short
        is redone whole by the next one.
        """
        with self.db.write() as conn:
            _replace(conn, owned, list(nodes), edges)

    def forget_build(self, scope: Scope) -> None:
        """The scope's graph is about to change in parts: until `finish_build`, it was built
        from nothing the next pass can trust."""
        with self.db.write() as conn:
            conn.execute("DELETE FROM graph_builds WHERE scope_key = ?", (_scope_key(scope),))

    def finish_build(self, scope: Scope, declared: Collection[str], source_digest: str) -> None:
        """The last write of a pass in parts: drop the workspace's vocabulary nodes that nothing
        uses and the pass did not declare, and record what the graph was built from."""
        with self.db.write() as conn:
            _drop_unused_vocabulary(conn, scope, declared)
            _mark_built(conn, scope, source_digest)

    def drop_scope(self, scope: Scope) -> None:
        """Remove every instance node of a scope and the edges at them, a batch at a time,
        then the vocabulary of its workspace that nothing uses any more."""
        args = _scope_args(scope)
        while True:
            with self.db.write() as conn:
                gone = conn.execute(
                    "DELETE FROM graph_nodes WHERE id IN (SELECT id FROM graph_nodes "
                    f"WHERE label IN ({_INSTANCE}) AND {_IN_SCOPE} "
                    "LIMIT :limit)",
                    {**args, "limit": _DROP_BATCH},
                ).rowcount
            if not gone:
                break
        with self.db.write() as conn:
            _drop_unused_vocabulary(conn, scope, [])

    def built_from(self, scope: Scope) -> str | None:
        """The digest the scope's graph was last built from; None: never built here."""
        with self.db.read() as conn:
            if not has_table(conn, "graph_builds"):
                return None
            row = conn.execute(
                "SELECT source_digest FROM graph_builds WHERE scope_key = ?", (_scope_key(scope),)
            ).fetchone()
        return None if row is None else str(row[0])

    # -- NodeFinder ----------------------------------------------------------------------------

    def nodes(self, ids: Collection[str]) -> dict[str, Node]:
        if not ids:
            return {}
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return {}
            rows = conn.execute(
                f"SELECT * FROM graph_nodes WHERE id IN ({dialect_of(conn).json_values('?')})",
                (json.dumps(list(ids)),),
            ).fetchall()
        return {row["id"]: _node(row) for row in rows}

    def find_nodes(self, label: NodeLabel, scope: Scope, local: str | None = None) -> list[Node]:
        sql = "SELECT * FROM graph_nodes WHERE label = ?"
        args: list[object] = [label]
        if local is not None:
            sql += " AND local = ?"
            args.append(local)
        for column, value in (
            ("workspace", scope.workspace),
            ("project", scope.project),
            ("stream", scope.stream),
        ):
            if value:
                sql += f" AND {column} = ?"
                args.append(value)
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return []
            rows = conn.execute(sql + " ORDER BY id", args).fetchall()
        return [_node(row) for row in rows]

    # -- EdgeReader ----------------------------------------------------------------------------

    def edges_from(self, srcs: Collection[str], label: EdgeLabel) -> list[Edge]:
        return self._edges("src", srcs, label)

    def edges_to(self, dsts: Collection[str], label: EdgeLabel) -> list[Edge]:
        return self._edges("dst", dsts, label)

    def _edges(self, end: str, ids: Collection[str], label: EdgeLabel) -> list[Edge]:
        if not ids:
            return []
        with self.db.read() as conn:
            if not has_table(conn, "graph_edges"):
                return []
            rows = conn.execute(
                f"SELECT * FROM graph_edges WHERE {end} IN ({dialect_of(conn).json_values('?')}) "
                "AND label = ? ORDER BY src, dst, discriminator",
                (json.dumps(list(ids)), label),
            ).fetchall()
        return [_edge(row) for row in rows]

    def block_page(self, scope: Scope, after: str | None, limit: int) -> list[Node]:
        """Up to `limit` block nodes of the scope with ids above `after`, by id: a large scope
        read one part at a time."""
        low, high = _bounds("block", scope, after, None)
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return []
            rows = conn.execute(
                "SELECT * FROM graph_nodes WHERE id > ? AND id <= ? AND label = 'block' "
                "ORDER BY id LIMIT ?",
                (low, high, limit),
            ).fetchall()
        return [_node(row) for row in rows]

    # -- whole-graph reads (publishing, status, rebuild comparison) ----------------------------

    def count_nodes(self, scope: Scope) -> int:
        """Instance nodes of a scope and the vocabulary of its workspace."""
        ws, project, stream = _dims(scope)
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return 0
            return int(
                conn.execute(
                    "SELECT count(*) FROM graph_nodes WHERE workspace IS NOT DISTINCT FROM ? "
                    "AND ((project IS NOT DISTINCT FROM ? AND stream IS NOT DISTINCT FROM ?) "
                    "OR label IN (?, ?))",
                    (ws, project, stream, *VOCABULARY_LABELS),
                ).fetchone()[0]
            )

    def count_edges(self, scope: Scope) -> int:
        """Edges leaving the scope's instance nodes: every edge the scope owns."""
        ws, project, stream = _dims(scope)
        with self.db.read() as conn:
            if not has_table(conn, "graph_edges"):
                return 0
            return int(
                conn.execute(
                    "SELECT count(*) FROM graph_edges WHERE src IN (SELECT id FROM graph_nodes "
                    "WHERE workspace IS NOT DISTINCT FROM ? AND project IS NOT DISTINCT FROM ? "
                    "AND stream IS NOT DISTINCT FROM ?)",
                    (ws, project, stream),
                ).fetchone()[0]
            )

    def scopes(self) -> list[Scope]:
        """The instance scopes the graph holds nodes for."""
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return []
            rows = conn.execute(
                "SELECT DISTINCT workspace, project, stream FROM graph_nodes "
                "WHERE label IN (?, ?, ?)",
                INSTANCE_LABELS,
            ).fetchall()
        return [Scope(r[0] or "", r[1] or "", r[2] or "") for r in rows]

    def all_nodes(self) -> list[Node]:
        with self.db.read() as conn:
            if not has_table(conn, "graph_nodes"):
                return []
            return [_node(r) for r in conn.execute("SELECT * FROM graph_nodes ORDER BY id")]

    def all_edges(self) -> list[Edge]:
        with self.db.read() as conn:
            if not has_table(conn, "graph_edges"):
                return []
            rows = conn.execute(
                "SELECT * FROM graph_edges ORDER BY src, label, dst, discriminator"
            ).fetchall()
        return [_edge(r) for r in rows]
