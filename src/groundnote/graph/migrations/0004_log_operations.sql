-- graph/0004: the operation log without its list of operation names. Seed 000 §3.1 checks
-- `operation IN (…)`, so every new operation that logs to the scope file would need another
-- rebuild like 0002's. The list is held by a test against the declared operations instead
-- (DESIGN §15 P9; tests/capabilities/test_declarations.py). Every other CHECK stays as 0002
-- wrote it; child table first, as in 0002, and the renames rewrite feedback's REFERENCES.
CREATE TABLE search_log_new (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL CHECK (at GLOB '????-??-??T??:??:??*Z'),
  grant_id TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  operation TEXT NOT NULL CHECK (length(operation) BETWEEN 1 AND 100),
  outcome TEXT NOT NULL,
  cross_scope INTEGER NOT NULL DEFAULT 0 CHECK (cross_scope IN (0,1)),
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
  terms TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(terms)),
  variants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(variants)),
  stages TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(stages)),
  input_sha256 TEXT NOT NULL);
INSERT INTO search_log_new (id, at, grant_id, channel, operation, outcome, cross_scope, refs, terms, variants, stages, input_sha256)
  SELECT id, at, grant_id, channel, operation, outcome, cross_scope, refs, terms, variants, stages, input_sha256 FROM search_log;
CREATE TABLE feedback_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  search_id TEXT NOT NULL REFERENCES search_log_new(id),
  ref TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('useful','not-useful','wrong')),
  given_by TEXT NOT NULL,
  given_at TEXT NOT NULL CHECK (given_at GLOB '????-??-??T??:??:??*Z'));
INSERT INTO feedback_new (id, search_id, ref, verdict, given_by, given_at)
  SELECT id, search_id, ref, verdict, given_by, given_at FROM feedback;
DROP TABLE feedback;
DROP TABLE search_log;
ALTER TABLE search_log_new RENAME TO search_log;
ALTER TABLE feedback_new RENAME TO feedback;
