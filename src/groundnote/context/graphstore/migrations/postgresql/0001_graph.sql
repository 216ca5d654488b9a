-- (PostgreSQL twin of ../0001_graph.sql: the rollup's copy in the instance schema; a content
-- project's own store stays SQLite)
-- The property graph (seed 002): labelled nodes and labelled, optionally time-bounded edges,
-- both carrying JSON properties. Empty dimensions are NULL, never ''.
CREATE TABLE graph_nodes (
  id TEXT PRIMARY KEY,
  label TEXT NOT NULL
    CHECK (label IN ('block', 'collection', 'unit_state', 'concept', 'coordinate')),
  workspace TEXT CHECK (workspace <> ''),
  project TEXT CHECK (project <> ''),
  stream TEXT CHECK (stream <> ''),
  local TEXT NOT NULL,
  props TEXT NOT NULL,
  -- vocabulary nodes drop the instance dimensions
  CHECK (label NOT IN ('concept', 'coordinate') OR (project IS NULL AND stream IS NULL))
);
CREATE INDEX graph_nodes_local ON graph_nodes(label, local);
CREATE INDEX graph_nodes_scope ON graph_nodes(workspace, project, stream);

CREATE TABLE graph_edges (
  src TEXT NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  label TEXT NOT NULL
    CHECK (label IN ('uses_term', 'in_collection', 'governed_by', 'blesses')),
  dst TEXT NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
  discriminator TEXT NOT NULL DEFAULT '',
  valid_from TEXT,
  valid_to TEXT,
  props TEXT NOT NULL,
  PRIMARY KEY (src, label, dst, discriminator),
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from < valid_to)
);
CREATE INDEX graph_edges_dst ON graph_edges(dst, label);

-- What each scope's graph was last built from (the vocabulary's digest): a pass may reuse
-- the edges of unchanged blocks only while the vocabulary it searched for is the same.
CREATE TABLE graph_builds (
  scope_key TEXT PRIMARY KEY,
  source_digest TEXT NOT NULL
);
