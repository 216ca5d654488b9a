-- graph/0002 (PostgreSQL twin of ../0002_graph.sql, seed 000 §3): the operation log with the
-- graph's operations, the versioned entity tree with its closure and trigram table, stored
-- links and person reviews. One transaction. GLOB checks are regexes; each RAISE(ABORT)
-- trigger is a PL/pgSQL function raising the same text with SQLSTATE 23000.

-- 3.1 The log: PostgreSQL widens a CHECK in place, so no rebuild (SQLite's needs one).
ALTER TABLE search_log DROP CONSTRAINT search_log_operation_check;
ALTER TABLE search_log ADD CONSTRAINT search_log_operation_check CHECK (operation IN ('search','read_rule','list_rules','provenance',
    'propose','list_proposals','list_rejected','decide','store_source','feedback','list_scopes','status',
    'resolve_entity','read_entity','create_entity','move_entity','update_entity','propose_link','list_links',
    'list_structure','review_structure','archive_entity','export'));

-- 3.2 Entities
CREATE TABLE entity (                                  -- head, immutable
  seq BIGINT PRIMARY KEY,                              -- explicit max+1
  id TEXT NOT NULL UNIQUE,                             -- <scope>-e<nnnn>, never reused
  scope TEXT NOT NULL,
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  created_by TEXT NOT NULL CHECK (created_by IN ('human','agent','import')));
CREATE OR REPLACE FUNCTION entity_in_scope() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.scope IS DISTINCT FROM (SELECT scope FROM meta)
     OR NEW.id IS DISTINCT FROM NEW.scope || '-e' || seq4(NEW.seq) THEN
    RAISE EXCEPTION 'entity-id-not-in-scope' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER entity_in_scope BEFORE INSERT ON entity FOR EACH ROW EXECUTE FUNCTION entity_in_scope();

CREATE TABLE entity_version (
  id TEXT NOT NULL REFERENCES entity(id),
  version BIGINT NOT NULL CHECK (version >= 1),
  type TEXT NOT NULL CHECK (length(type) BETWEEN 2 AND 30 AND type !~ '[^a-z0-9_]'),
  name TEXT NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 200),
  aliases TEXT NOT NULL CHECK (json_valid(aliases) AND json_type(aliases) = 'array' AND json_array_length(aliases) <= 20),
  parent_id TEXT REFERENCES entity(id),
  status TEXT NOT NULL CHECK (status IN ('active','unconfirmed','archived')),
  valid_from TEXT NOT NULL CHECK (valid_from ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  valid_to TEXT CHECK (valid_to IS NULL OR valid_to ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  evidence TEXT CHECK (evidence IS NULL OR length(evidence) BETWEEN 1 AND 1000),
  change TEXT NOT NULL CHECK (change IN ('create','move','update','confirm','revert','archive')),
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','approval')),
  changed_by TEXT NOT NULL,                            -- grant id
  changed_at TEXT NOT NULL CHECK (changed_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
  PRIMARY KEY (id, version),
  CHECK (parent_id IS NULL OR parent_id <> id),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK ((status = 'archived') = (valid_to IS NOT NULL)),
  CHECK ((channel = 'approval') = (change IN ('confirm','revert','archive'))),
  CHECK (channel <> 'approval' OR changed_by ~ '^person:'),
  CHECK (change <> 'create' OR status = 'unconfirmed'),
  CHECK (change <> 'confirm' OR status = 'active'),
  CHECK (change <> 'archive' OR status = 'archived'));

CREATE VIEW entity_current AS SELECT v.* FROM entity_version v
WHERE v.version = (SELECT max(w.version) FROM entity_version w WHERE w.id = v.id);

CREATE TABLE entity_closure (                          -- derived; written only by graph/closure.py (AT5)
  ancestor_id TEXT NOT NULL REFERENCES entity(id),
  descendant_id TEXT NOT NULL REFERENCES entity(id),
  depth BIGINT NOT NULL CHECK (depth >= 0),
  PRIMARY KEY (ancestor_id, descendant_id),
  CHECK ((depth = 0) = (ancestor_id = descendant_id)));
CREATE INDEX entity_closure_up ON entity_closure(descendant_id, depth);
CREATE INDEX entity_closure_down ON entity_closure(ancestor_id, depth);

-- The checks in SQLite's order: the first refusal that applies is the one raised.
CREATE OR REPLACE FUNCTION entity_version_rules() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prior entity_version%ROWTYPE;
BEGIN
  SELECT * INTO prior FROM entity_version WHERE id = NEW.id AND version = NEW.version - 1;
  IF NEW.version <> 1 + coalesce((SELECT max(version) FROM entity_version WHERE id = NEW.id), 0) THEN
    RAISE EXCEPTION 'version-gap' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF (NEW.version = 1) <> (NEW.change = 'create') THEN
    RAISE EXCEPTION 'invalid-transition' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF prior.status = 'archived' THEN
    RAISE EXCEPTION 'terminal-state' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.change = 'confirm' AND prior.status <> 'unconfirmed' THEN
    RAISE EXCEPTION 'invalid-transition' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.change IN ('move','update') AND NEW.status IS DISTINCT FROM prior.status THEN
    RAISE EXCEPTION 'invalid-transition' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.change IN ('confirm','archive') AND prior.id IS NOT NULL AND (
      prior.type IS DISTINCT FROM NEW.type OR prior.name IS DISTINCT FROM NEW.name
      OR prior.aliases IS DISTINCT FROM NEW.aliases OR prior.parent_id IS DISTINCT FROM NEW.parent_id) THEN
    RAISE EXCEPTION 'state-changed' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.parent_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM entity_closure WHERE ancestor_id = NEW.id AND descendant_id = NEW.parent_id) THEN
    RAISE EXCEPTION 'cycle' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.status <> 'archived' AND NEW.parent_id IS NOT NULL
     AND (SELECT status FROM entity_current WHERE id = NEW.parent_id) = 'archived' THEN
    RAISE EXCEPTION 'parent-archived' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.status = 'archived' AND EXISTS (
      SELECT 1 FROM entity_closure c JOIN entity_current k ON k.id = c.descendant_id
      WHERE c.ancestor_id = NEW.id AND c.depth = 1 AND k.status <> 'archived') THEN
    RAISE EXCEPTION 'has-children' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER entity_version_rules BEFORE INSERT ON entity_version
FOR EACH ROW EXECUTE FUNCTION entity_version_rules();

-- rowid = entity.seq (the key SQLite's FTS5 table has, so the statements naming it are one
-- text); normalized text (§5.1) of the current version; written only by graph/fts.py. Recall
-- is the in-memory trigram index (DESIGN §4); the trigram GIN index serves the literal
-- duplicate check, which asks for names containing given trigrams.
CREATE TABLE entity_fts (
  rowid BIGINT PRIMARY KEY,
  name TEXT NOT NULL,
  aliases TEXT NOT NULL);
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE INDEX entity_fts_name ON entity_fts USING gin (name public.gin_trgm_ops);

-- 3.3 Links and reviews
CREATE TABLE link (                                    -- stored links only (K2)
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,                             -- <scope>-l<nnnn>
  from_ref TEXT NOT NULL, to_ref TEXT NOT NULL,
  type TEXT NOT NULL CHECK (length(type) BETWEEN 3 AND 40 AND type !~ '[^a-z_]'),
  origin TEXT NOT NULL CHECK (origin IN ('deterministic','proposed','human')),
  confidence DOUBLE PRECISION CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
  reason TEXT CHECK (reason IS NULL OR length(trim(reason)) > 0),
  evidence TEXT CHECK (evidence IS NULL OR length(evidence) BETWEEN 1 AND 1000),
  valid_from TEXT NOT NULL CHECK (valid_from ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  valid_to TEXT CHECK (valid_to IS NULL OR valid_to ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  created_by TEXT NOT NULL,                            -- 'code' for deterministic, else grant id
  CHECK (from_ref <> to_ref),
  CHECK ((origin = 'proposed') = (confidence IS NOT NULL)),
  CHECK (origin = 'deterministic' OR reason IS NOT NULL),
  CHECK ((origin = 'deterministic') = (created_by = 'code')),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK (substr(from_ref, 1, 5) = 'rule/' OR substr(from_ref, 1, 7) IN ('source/','entity/') OR substr(from_ref, 1, 11) = 'attachment/'),
  CHECK (substr(to_ref, 1, 5) = 'rule/' OR substr(to_ref, 1, 7) IN ('source/','entity/') OR substr(to_ref, 1, 11) = 'attachment/'));
CREATE UNIQUE INDEX link_open ON link(from_ref, type, to_ref) WHERE valid_to IS NULL;
CREATE INDEX link_to ON link(to_ref, type);

CREATE OR REPLACE FUNCTION link_known_ref(ref text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM rule WHERE 'rule/' || id = ref)
    OR EXISTS (SELECT 1 FROM entity WHERE 'entity/' || id = ref)
    OR EXISTS (SELECT 1 FROM source WHERE 'source/' || id = ref)
    OR EXISTS (SELECT 1 FROM source_attachment WHERE 'attachment/' || source_id || '#' || n = ref)
$$;
CREATE OR REPLACE FUNCTION link_in_scope() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM (SELECT scope FROM meta) || '-l' || seq4(NEW.seq) THEN
    RAISE EXCEPTION 'link-id-not-in-scope' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER link_in_scope BEFORE INSERT ON link FOR EACH ROW EXECUTE FUNCTION link_in_scope();
CREATE OR REPLACE FUNCTION link_endpoints() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT link_known_ref(NEW.from_ref) OR NOT link_known_ref(NEW.to_ref) THEN
    RAISE EXCEPTION 'link-endpoint-unknown' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM entity_current
      WHERE status = 'archived' AND 'entity/' || id IN (NEW.from_ref, NEW.to_ref)) THEN
    RAISE EXCEPTION 'entity-archived' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER link_endpoints BEFORE INSERT ON link FOR EACH ROW EXECUTE FUNCTION link_endpoints();
CREATE TRIGGER link_end_once BEFORE UPDATE ON link FOR EACH ROW
WHEN (NOT (OLD.valid_to IS NULL AND NEW.valid_to IS NOT NULL
  AND NEW.seq IS NOT DISTINCT FROM OLD.seq AND NEW.id IS NOT DISTINCT FROM OLD.id
  AND NEW.from_ref IS NOT DISTINCT FROM OLD.from_ref AND NEW.to_ref IS NOT DISTINCT FROM OLD.to_ref
  AND NEW.type IS NOT DISTINCT FROM OLD.type AND NEW.origin IS NOT DISTINCT FROM OLD.origin
  AND NEW.confidence IS NOT DISTINCT FROM OLD.confidence AND NEW.reason IS NOT DISTINCT FROM OLD.reason
  AND NEW.evidence IS NOT DISTINCT FROM OLD.evidence AND NEW.valid_from IS NOT DISTINCT FROM OLD.valid_from
  AND NEW.created_at IS NOT DISTINCT FROM OLD.created_at AND NEW.created_by IS NOT DISTINCT FROM OLD.created_by))
EXECUTE FUNCTION append_only();

CREATE TABLE review (                                  -- person verdicts on agent versions and proposed links
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,                             -- <scope>-r<nnnn>
  target TEXT NOT NULL,                                -- entity/<id>@<n> | link/<id>
  verdict TEXT NOT NULL CHECK (verdict IN ('confirm','reject','revert')),
  decided_by TEXT NOT NULL CHECK (decided_by ~ '^person:'),
  decided_by_identity TEXT NOT NULL,
  decided_at TEXT NOT NULL CHECK (decided_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  reason TEXT,
  new_version BIGINT,
  CHECK (target ~ '^entity/.*@' OR target ~ '^link/'),
  CHECK (verdict <> 'reject' OR target ~ '^link/'),
  CHECK (verdict <> 'revert' OR target ~ '^entity/'),
  CHECK (verdict = 'confirm' OR length(trim(coalesce(reason, ''))) > 0));
CREATE UNIQUE INDEX review_once ON review(target);
CREATE OR REPLACE FUNCTION review_in_scope() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM (SELECT scope FROM meta) || '-r' || seq4(NEW.seq) THEN
    RAISE EXCEPTION 'review-id-not-in-scope' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER review_in_scope BEFORE INSERT ON review FOR EACH ROW EXECUTE FUNCTION review_in_scope();

-- append-only: history is never rewritten; a link only ever gets its valid_to (link_end_once)
CREATE TRIGGER entity_no_update BEFORE UPDATE ON entity FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER entity_no_delete BEFORE DELETE ON entity FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER entity_version_no_update BEFORE UPDATE ON entity_version FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER entity_version_no_delete BEFORE DELETE ON entity_version FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER review_no_update BEFORE UPDATE ON review FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER review_no_delete BEFORE DELETE ON review FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER link_no_delete BEFORE DELETE ON link FOR EACH ROW EXECUTE FUNCTION append_only();

UPDATE meta SET schema_version = 2;
