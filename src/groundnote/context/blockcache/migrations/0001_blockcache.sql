-- The block cache (C-01): documents, their units, blocks keyed by content key, and one
-- block_texts row per block per locale (source under '') with a contentless trigram index.
CREATE TABLE block_documents (
  path TEXT PRIMARY KEY,
  doc_key TEXT NOT NULL UNIQUE,
  fingerprint TEXT NOT NULL
);

CREATE TABLE block_collections (
  path TEXT NOT NULL REFERENCES block_documents(path) ON DELETE CASCADE,
  collection TEXT NOT NULL,
  PRIMARY KEY (path, collection)
);
CREATE INDEX block_collections_label ON block_collections(collection);

-- The payload is JSON {"text": …, "targets": {locale: text}}: no SQL reads inside it.
CREATE TABLE blocks (
  content_key TEXT PRIMARY KEY,
  payload TEXT NOT NULL
);

CREATE TABLE block_units (
  path TEXT NOT NULL REFERENCES block_documents(path) ON DELETE CASCADE,
  unit TEXT NOT NULL,
  position INTEGER NOT NULL,
  content_key TEXT NOT NULL,
  targets TEXT NOT NULL,
  PRIMARY KEY (path, unit)
);
CREATE INDEX block_units_key ON block_units(content_key);

CREATE TABLE block_texts (
  id INTEGER PRIMARY KEY,
  content_key TEXT NOT NULL,
  locale TEXT NOT NULL,
  text TEXT NOT NULL,
  indexed INTEGER NOT NULL DEFAULT 0 CHECK (indexed IN (0, 1)),
  UNIQUE (content_key, locale)
);
CREATE INDEX block_texts_stale ON block_texts(indexed) WHERE indexed = 0;

-- Texts the index still holds but the table no longer does: the next reconcile removes them
-- (a contentless FTS5 table forgets a row only when given its old text).
CREATE TABLE block_texts_retired (
  id INTEGER NOT NULL,
  text TEXT NOT NULL
);

CREATE VIRTUAL TABLE block_texts_trigram USING fts5(text, content = '', tokenize = 'trigram');

-- A write marks a row stale; it never touches the index (seed 002: indexing in every write
-- costs roughly seven times the write).
CREATE TRIGGER block_texts_retire_update AFTER UPDATE OF text ON block_texts
WHEN old.indexed = 1 AND old.text <> new.text
BEGIN
  INSERT INTO block_texts_retired (id, text) VALUES (old.id, old.text);
  UPDATE block_texts SET indexed = 0 WHERE id = new.id;
END;

CREATE TRIGGER block_texts_retire_delete AFTER DELETE ON block_texts
WHEN old.indexed = 1
BEGIN
  INSERT INTO block_texts_retired (id, text) VALUES (old.id, old.text);
END;

-- Blocks written, changed or dropped since the graph last looked at them: the feed the graph
-- materializer drains, so a run interrupted between extraction and the graph loses nothing.
CREATE TABLE block_changes (
  content_key TEXT PRIMARY KEY
);
