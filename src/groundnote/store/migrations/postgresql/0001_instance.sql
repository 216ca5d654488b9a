-- instance (PostgreSQL twin of ../0001_instance.sql): the scope registry and the operation log
-- of calls that belong to no one scope. GLOB checks are regexes; RAISE(ABORT) triggers are
-- PL/pgSQL raising the same text with SQLSTATE 23000, so both backends refuse alike.
-- The json_*/seq4/append_only functions come from store/postgres_functions.sql, made with the schema.

CREATE TABLE scope (
  name TEXT PRIMARY KEY CHECK (name ~ '^[a-z]' AND length(name) BETWEEN 2 AND 40
                               AND name !~ '[^a-z0-9-]'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  approval_mode TEXT NOT NULL DEFAULT 'person' CHECK (approval_mode IN ('person','auto')),
  repo TEXT);

CREATE TABLE search_log (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL CHECK (at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  grant_id TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  operation TEXT NOT NULL,
  outcome TEXT NOT NULL,
  cross_scope BIGINT NOT NULL DEFAULT 0 CHECK (cross_scope IN (0,1)),
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
  terms TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(terms)),
  variants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(variants)),
  stages TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(stages)),
  input_sha256 TEXT NOT NULL);
CREATE INDEX search_log_at ON search_log(at);
CREATE TRIGGER search_log_no_update BEFORE UPDATE ON search_log FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER search_log_no_delete BEFORE DELETE ON search_log FOR EACH ROW EXECUTE FUNCTION append_only();
