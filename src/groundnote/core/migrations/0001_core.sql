-- core/0001: the scope file's identity, sources with attachments, rules with evidence and
-- decisions, and the operation log (search_log, feedback) with the columns seed 000 §3.1 copies.
CREATE TABLE meta (
  scope TEXT CHECK (scope IS NULL OR (scope GLOB '[a-z]*' AND scope NOT GLOB '*[^a-z0-9-]*')),
  schema_version INTEGER NOT NULL);
INSERT INTO meta (scope, schema_version) VALUES (NULL, 1);

CREATE TABLE source (                                  -- a mail or a meeting; immutable
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE CHECK (id GLOB 'mail:<?*>' OR id GLOB 'jamie:?*'),
  kind TEXT NOT NULL CHECK (kind IN ('mail','meeting')),
  title TEXT NOT NULL,                                 -- subject or meeting title
  day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  sent_at TEXT CHECK (sent_at IS NULL OR sent_at GLOB '????-??-??T??:??:??*Z'),
  sender TEXT,
  recipients TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(recipients)),   -- to
  cc TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(cc)),
  in_reply_to TEXT,
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),               -- References header
  participants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(participants)),
  body TEXT NOT NULL,                                  -- body text or transcript
  content_sha256 TEXT NOT NULL,
  stored_at TEXT NOT NULL CHECK (stored_at GLOB '????-??-??T??:??:??*Z'),
  stored_by TEXT NOT NULL,
  CHECK ((kind = 'mail') = (id GLOB 'mail:*')));
CREATE INDEX source_reply ON source(in_reply_to);
CREATE INDEX source_day ON source(day);

CREATE TABLE source_attachment (
  source_id TEXT NOT NULL REFERENCES source(id),
  n INTEGER NOT NULL CHECK (n >= 1),
  filename TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size >= 0),
  sha256 TEXT NOT NULL,
  text TEXT,
  PRIMARY KEY (source_id, n));

CREATE TABLE rule (                                    -- a statement never changes (append-only)
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,                             -- <scope>-0001
  statement TEXT NOT NULL CHECK (length(trim(statement)) BETWEEN 1 AND 2000),
  evidence_quote TEXT CHECK (evidence_quote IS NULL OR length(evidence_quote) <= 2000),
  evidence_refs TEXT NOT NULL CHECK (json_valid(evidence_refs) AND json_type(evidence_refs) = 'array'),
  valid_from TEXT NOT NULL CHECK (valid_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  valid_to TEXT CHECK (valid_to IS NULL OR valid_to GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  supersedes TEXT REFERENCES rule(id),
  proposed_at TEXT NOT NULL CHECK (proposed_at GLOB '????-??-??T??:??:??*Z'),
  proposed_by TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK (supersedes IS NULL OR supersedes <> id));
CREATE INDEX rule_supersedes ON rule(supersedes);
CREATE TRIGGER rule_in_scope BEFORE INSERT ON rule
WHEN NEW.id IS NOT (SELECT scope FROM meta) || '-' || printf('%04d', NEW.seq)
BEGIN SELECT RAISE(ABORT, 'rule-id-not-in-scope'); END;

CREATE TABLE rule_decision (                           -- rows, never updates
  seq INTEGER PRIMARY KEY,
  rule_id TEXT NOT NULL REFERENCES rule(id),
  verdict TEXT NOT NULL CHECK (verdict IN ('adopt','reject','retract')),
  reason TEXT,
  decided_by TEXT NOT NULL,                            -- person:<name>, policy:auto-adopt, or the grant
  decided_at TEXT NOT NULL CHECK (decided_at GLOB '????-??-??T??:??:??*Z'),
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval','policy')),
  CHECK (verdict = 'adopt' OR length(trim(coalesce(reason, ''))) > 0),
  CHECK ((channel = 'approval') = (decided_by GLOB 'person:?*')),
  CHECK ((channel = 'policy') = (decided_by = 'policy:auto-adopt')),
  CHECK (channel IN ('approval','policy') OR verdict = 'retract'),   -- agents only retract
  CHECK (channel <> 'policy' OR verdict = 'adopt'));
-- The backstop of the transitions code checks first: proposed → adopted | rejected, adopted →
-- retracted; an agent retracts only what the policy adopted.
CREATE TRIGGER rule_decision_transition BEFORE INSERT ON rule_decision BEGIN
  SELECT RAISE(ABORT, 'already-decided') WHERE NEW.verdict IN ('adopt','reject') AND EXISTS (
    SELECT 1 FROM rule_decision d WHERE d.rule_id = NEW.rule_id);
  SELECT RAISE(ABORT, 'invalid-transition') WHERE NEW.verdict = 'retract' AND coalesce((
    SELECT d.verdict FROM rule_decision d WHERE d.rule_id = NEW.rule_id ORDER BY d.seq DESC LIMIT 1),
    '') <> 'adopt';
  SELECT RAISE(ABORT, 'not-auto-adopted') WHERE NEW.channel NOT IN ('approval','policy')
    AND NOT EXISTS (SELECT 1 FROM rule_decision d WHERE d.rule_id = NEW.rule_id
      AND d.decided_by = 'policy:auto-adopt');
END;
CREATE INDEX rule_decision_rule ON rule_decision(rule_id, seq);

-- A rule's status is derived, never stored: its latest decision, and whether an adopted rule
-- that supersedes it exists. proposed → adopted | rejected; adopted → superseded | retracted.
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
  EXISTS (SELECT 1 FROM rule_decision d WHERE d.rule_id = r.id AND d.decided_by = 'policy:auto-adopt')
    AS auto_adopted
FROM rule r;

-- Which sources and attachments a rule cites: rule.evidence_refs as rows, written with the rule,
-- so that "rules citing this source" is an index lookup and the database checks every ref.
CREATE TABLE rule_evidence (
  rule_id TEXT NOT NULL REFERENCES rule(id),
  source_id TEXT NOT NULL REFERENCES source(id),
  n INTEGER,                                           -- NULL: the source itself
  PRIMARY KEY (rule_id, source_id, n),
  FOREIGN KEY (source_id, n) REFERENCES source_attachment(source_id, n));
CREATE INDEX rule_evidence_source ON rule_evidence(source_id);

-- Full text, written only by core/fts.py with the text normalised there (umlauts folded to
-- ae/oe/ue/ss, so that "Mueller" finds "Müller"); rowid = rule.seq / source.seq. Contentless,
-- because the indexed text is not the stored text; both are projections that rebuild_fts
-- recreates from rule and source.
CREATE VIRTUAL TABLE rule_fts USING fts5(statement, quote, content = '',
  tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE source_fts USING fts5(title, body, attachments, content = '',
  tokenize = 'unicode61 remove_diacritics 2');
-- The words of both indexes, so that a prefix ("rabatt"*) is searched as the OR of the words it
-- stands for: FTS5 merges a prefix's whole doclist before the first row, an OR stops at LIMIT.
CREATE TABLE fts_word (word TEXT PRIMARY KEY) WITHOUT ROWID;

CREATE TABLE search_log (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL CHECK (at GLOB '????-??-??T??:??:??*Z'),
  grant_id TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mcp','api','cli','approval')),
  operation TEXT NOT NULL CHECK (operation IN ('search','read_rule','list_rules','provenance',
    'propose','list_proposals','list_rejected','decide','store_source','feedback','list_scopes','status',
    'export')),
  outcome TEXT NOT NULL,
  cross_scope INTEGER NOT NULL DEFAULT 0 CHECK (cross_scope IN (0,1)),
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
  terms TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(terms)),
  variants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(variants)),
  stages TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(stages)),
  input_sha256 TEXT NOT NULL);

CREATE TABLE feedback (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  search_id TEXT NOT NULL REFERENCES search_log(id),
  ref TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('useful','not-useful','wrong')),
  given_by TEXT NOT NULL,
  given_at TEXT NOT NULL CHECK (given_at GLOB '????-??-??T??:??:??*Z'));

CREATE TRIGGER source_no_update BEFORE UPDATE ON source BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER source_no_delete BEFORE DELETE ON source BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER source_attachment_no_update BEFORE UPDATE ON source_attachment BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER source_attachment_no_delete BEFORE DELETE ON source_attachment BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_no_update BEFORE UPDATE ON rule BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_no_delete BEFORE DELETE ON rule BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_decision_no_update BEFORE UPDATE ON rule_decision BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_decision_no_delete BEFORE DELETE ON rule_decision BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_evidence_no_update BEFORE UPDATE ON rule_evidence BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER rule_evidence_no_delete BEFORE DELETE ON rule_evidence BEGIN SELECT RAISE(ABORT, 'append-only'); END;
