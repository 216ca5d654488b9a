-- core/0001 (PostgreSQL twin of ../0001_core.sql): the scope's identity, sources with
-- attachments, rules with evidence and decisions, and the operation log. GLOB checks are
-- regexes; every RAISE(ABORT) trigger is a PL/pgSQL function raising the same text with
-- SQLSTATE 23000; the FTS5 tables are tsvector tables with GIN indexes (see below).
-- The json_*/seq4/append_only functions come from store/postgres_functions.sql, made with the schema.

CREATE TABLE meta (
  scope TEXT CHECK (scope IS NULL OR (scope ~ '^[a-z]' AND scope !~ '[^a-z0-9-]')),
  schema_version BIGINT NOT NULL);
INSERT INTO meta (scope, schema_version) VALUES (NULL, 1);

CREATE TABLE source (                                  -- a mail or a meeting; immutable
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE CHECK (id ~ '^mail:<.+>$' OR id ~ '^jamie:.'),
  kind TEXT NOT NULL CHECK (kind IN ('mail','meeting')),
  title TEXT NOT NULL,                                 -- subject or meeting title
  day TEXT NOT NULL CHECK (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  sent_at TEXT CHECK (sent_at IS NULL OR sent_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  sender TEXT,
  recipients TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(recipients)),   -- to
  cc TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(cc)),
  in_reply_to TEXT,
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),               -- References header
  participants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(participants)),
  body TEXT NOT NULL,                                  -- body text or transcript
  content_sha256 TEXT NOT NULL,
  stored_at TEXT NOT NULL CHECK (stored_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  stored_by TEXT NOT NULL,
  CHECK ((kind = 'mail') = (id ~ '^mail:')));
CREATE INDEX source_reply ON source(in_reply_to);
CREATE INDEX source_day ON source(day);

CREATE TABLE source_attachment (
  source_id TEXT NOT NULL REFERENCES source(id),
  n BIGINT NOT NULL CHECK (n >= 1),
  filename TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size BIGINT NOT NULL CHECK (size >= 0),
  sha256 TEXT NOT NULL,
  text TEXT,
  PRIMARY KEY (source_id, n));

CREATE TABLE rule (                                    -- a statement never changes (append-only)
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,                             -- <scope>-0001
  statement TEXT NOT NULL CHECK (length(trim(statement)) BETWEEN 1 AND 2000),
  evidence_quote TEXT CHECK (evidence_quote IS NULL OR length(evidence_quote) <= 2000),
  evidence_refs TEXT NOT NULL CHECK (json_valid(evidence_refs) AND json_type(evidence_refs) = 'array'),
  valid_from TEXT NOT NULL CHECK (valid_from ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  valid_to TEXT CHECK (valid_to IS NULL OR valid_to ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  supersedes TEXT REFERENCES rule(id),
  proposed_at TEXT NOT NULL CHECK (proposed_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  proposed_by TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK (supersedes IS NULL OR supersedes <> id));
CREATE INDEX rule_supersedes ON rule(supersedes);
CREATE OR REPLACE FUNCTION rule_in_scope() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS DISTINCT FROM (SELECT scope FROM meta) || '-' || seq4(NEW.seq) THEN
    RAISE EXCEPTION 'rule-id-not-in-scope' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER rule_in_scope BEFORE INSERT ON rule FOR EACH ROW EXECUTE FUNCTION rule_in_scope();

CREATE TABLE rule_decision (                           -- rows, never updates
  seq BIGINT PRIMARY KEY,
  rule_id TEXT NOT NULL REFERENCES rule(id),
  verdict TEXT NOT NULL CHECK (verdict IN ('adopt','reject','retract')),
  reason TEXT,
  decided_by TEXT NOT NULL,                            -- person:<name>, policy:auto-adopt, or the grant
  decided_at TEXT NOT NULL CHECK (decided_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval','policy')),
  CHECK (verdict = 'adopt' OR length(trim(coalesce(reason, ''))) > 0),
  CHECK ((channel = 'approval') = (decided_by ~ '^person:.')),
  CHECK ((channel = 'policy') = (decided_by = 'policy:auto-adopt')),
  CHECK (channel IN ('approval','policy') OR verdict = 'retract'),   -- agents only retract
  CHECK (channel <> 'policy' OR verdict = 'adopt'));
-- The backstop of the transitions code checks first: proposed → adopted | rejected, adopted →
-- retracted; an agent retracts only what the policy adopted. Checked in the SQLite order.
CREATE OR REPLACE FUNCTION rule_decision_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.verdict IN ('adopt','reject') AND EXISTS (
      SELECT 1 FROM rule_decision d WHERE d.rule_id = NEW.rule_id) THEN
    RAISE EXCEPTION 'already-decided' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.verdict = 'retract' AND coalesce((
      SELECT d.verdict FROM rule_decision d WHERE d.rule_id = NEW.rule_id ORDER BY d.seq DESC LIMIT 1),
      '') <> 'adopt' THEN
    RAISE EXCEPTION 'invalid-transition' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.channel NOT IN ('approval','policy') AND NOT EXISTS (
      SELECT 1 FROM rule_decision d WHERE d.rule_id = NEW.rule_id
        AND d.decided_by = 'policy:auto-adopt') THEN
    RAISE EXCEPTION 'not-auto-adopted' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER rule_decision_transition BEFORE INSERT ON rule_decision
FOR EACH ROW EXECUTE FUNCTION rule_decision_transition();
CREATE INDEX rule_decision_rule ON rule_decision(rule_id, seq);

-- A rule's status is derived, never stored. auto_adopted is 0/1 as on SQLite, not a boolean.
CREATE VIEW rule_state AS
SELECT r.id,
  CASE (SELECT d.verdict FROM rule_decision d WHERE d.rule_id = r.id ORDER BY d.seq DESC LIMIT 1)
    WHEN 'reject' THEN 'rejected'
    WHEN 'retract' THEN 'retracted'
    WHEN 'adopt' THEN CASE WHEN EXISTS (
        SELECT 1 FROM rule s WHERE s.supersedes = r.id AND (SELECT d2.verdict FROM rule_decision d2
          WHERE d2.rule_id = s.id ORDER BY d2.seq DESC LIMIT 1) = 'adopt')
      THEN 'superseded' ELSE 'adopted' END
    ELSE 'proposed' END AS status,
  (EXISTS (SELECT 1 FROM rule_decision d WHERE d.rule_id = r.id AND d.decided_by = 'policy:auto-adopt'))::int
    AS auto_adopted
FROM rule r;

CREATE TABLE rule_evidence (
  rule_id TEXT NOT NULL REFERENCES rule(id),
  source_id TEXT NOT NULL REFERENCES source(id),
  n BIGINT,                                            -- NULL: the source itself
  FOREIGN KEY (source_id, n) REFERENCES source_attachment(source_id, n));
-- SQLite's PRIMARY KEY (rule_id, source_id, n) allows NULL in n and treats NULLs as distinct;
-- a PostgreSQL primary key forbids NULL, so the same key is a unique index here.
CREATE UNIQUE INDEX rule_evidence_key ON rule_evidence(rule_id, source_id, n);
CREATE INDEX rule_evidence_source ON rule_evidence(source_id);

-- Full text, written only by core/fts.py through the store's dialect: `doc` holds the words
-- core tokenised and normalised (the same words as fts_word), the column they came from as
-- the weight (A statement, B quote; A title, B body, C attachments). `rowid` is rule.seq /
-- source.seq, the key SQLite's FTS5 tables have, so the statements that name it stay one text.
CREATE TABLE rule_fts (
  rowid BIGINT PRIMARY KEY,
  doc tsvector NOT NULL);
CREATE INDEX rule_fts_doc ON rule_fts USING gin (doc);
CREATE TABLE source_fts (
  rowid BIGINT PRIMARY KEY,
  doc tsvector NOT NULL);
CREATE INDEX source_fts_doc ON source_fts USING gin (doc);
-- The words of both indexes, for prefix expansion by a range scan: ordered by code point.
CREATE TABLE fts_word (word TEXT COLLATE "C" PRIMARY KEY);

CREATE TABLE search_log (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL CHECK (at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  grant_id TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  operation TEXT NOT NULL CONSTRAINT search_log_operation_check CHECK (operation IN ('search','read_rule','list_rules','provenance',
    'propose','list_proposals','list_rejected','decide','store_source','feedback','list_scopes','status',
    'export')),
  outcome TEXT NOT NULL,
  cross_scope BIGINT NOT NULL DEFAULT 0 CHECK (cross_scope IN (0,1)),
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
  terms TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(terms)),
  variants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(variants)),
  stages TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(stages)),
  input_sha256 TEXT NOT NULL);

CREATE TABLE feedback (
  id BIGINT PRIMARY KEY,                               -- max+1, as SQLite's AUTOINCREMENT gives
  search_id TEXT NOT NULL REFERENCES search_log(id),
  ref TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('useful','not-useful','wrong')),
  given_by TEXT NOT NULL,
  given_at TEXT NOT NULL CHECK (given_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));

CREATE TRIGGER source_no_update BEFORE UPDATE ON source FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER source_no_delete BEFORE DELETE ON source FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER source_attachment_no_update BEFORE UPDATE ON source_attachment FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER source_attachment_no_delete BEFORE DELETE ON source_attachment FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_no_update BEFORE UPDATE ON rule FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_no_delete BEFORE DELETE ON rule FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_decision_no_update BEFORE UPDATE ON rule_decision FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_decision_no_delete BEFORE DELETE ON rule_decision FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_evidence_no_update BEFORE UPDATE ON rule_evidence FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER rule_evidence_no_delete BEFORE DELETE ON rule_evidence FOR EACH ROW EXECUTE FUNCTION append_only();
