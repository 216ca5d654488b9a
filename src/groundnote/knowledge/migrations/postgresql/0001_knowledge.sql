-- knowledge/0001 (PostgreSQL twin of ../0001_knowledge.sql): the knowledge index, a projection of a bound checkout (DESIGN §10). Every
-- table here is rebuilt from the files and git; none is the truth, so none is append-only.

CREATE TABLE knowledge_meta (                          -- what the index was built from
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL);

CREATE TABLE knowledge_source_file (                   -- every file a row below came from
  path TEXT PRIMARY KEY,                               -- repository-relative
  kind TEXT NOT NULL CHECK (kind IN ('record','ledger')),
  sha256 TEXT NOT NULL CHECK (length(sha256) = 64));

CREATE TABLE knowledge_record (                       -- keyed by path: two files may claim one id,
  path TEXT PRIMARY KEY                                -- which the validator reports
    REFERENCES knowledge_source_file(path) ON DELETE CASCADE,
  id TEXT NOT NULL,
  source_class TEXT NOT NULL CHECK (source_class IN ('candidates','curated')),
  class TEXT NOT NULL CHECK (class IN ('fact','convention','constraint','memory','lesson')),
  status TEXT NOT NULL CHECK (status IN ('candidate','verified','superseded')),
  epistemics TEXT NOT NULL CHECK (epistemics IN ('observed','inferred','decided')),
  origin TEXT NOT NULL CHECK (origin IN ('','authored','extracted')),
  date TEXT NOT NULL CHECK (date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  title TEXT NOT NULL,
  superseded_by TEXT,
  derived_from TEXT NOT NULL CHECK (json_valid(derived_from) AND json_type(derived_from) = 'array'),
  relations TEXT NOT NULL CHECK (json_valid(relations) AND json_type(relations) = 'array'),
  CHECK ((status = 'superseded') = (superseded_by IS NOT NULL)));
CREATE INDEX knowledge_record_id ON knowledge_record(id);
CREATE INDEX knowledge_record_status ON knowledge_record(status, date);

CREATE TABLE knowledge_problem (                       -- a file that could not be read as meant
  path TEXT NOT NULL REFERENCES knowledge_source_file(path) ON DELETE CASCADE,
  line BIGINT NOT NULL CHECK (line >= 1),
  message TEXT NOT NULL,
  PRIMARY KEY (path, line, message));

CREATE TABLE knowledge_ledger (                        -- sessions, tasks, decisions
  kind TEXT NOT NULL CHECK (kind IN ('session','task','decision')),
  id TEXT NOT NULL,
  path TEXT NOT NULL REFERENCES knowledge_source_file(path) ON DELETE CASCADE,
  line BIGINT NOT NULL CHECK (line >= 1),
  PRIMARY KEY (kind, id, path, line));

CREATE TABLE knowledge_object (                        -- files of the tree, typed
  path TEXT PRIMARY KEY,
  is_test BIGINT NOT NULL CHECK (is_test IN (0,1)),
  kind TEXT CHECK (kind IS NULL OR kind IN ('adr','issue','session')),
  key TEXT,                                            -- the name an `adr:`/`issue:`/`session:` uses
  CHECK ((kind IS NULL) = (key IS NULL)));
CREATE INDEX knowledge_object_key ON knowledge_object(kind, key);

CREATE TABLE knowledge_commit (                        -- every commit reachable from a ref
  sha TEXT PRIMARY KEY CHECK (length(sha) = 40));

CREATE TABLE knowledge_history (                       -- paths git history holds after deletion
  path TEXT PRIMARY KEY,
  holder TEXT NOT NULL CHECK (length(holder) = 40));  -- the last commit whose tree holds it
