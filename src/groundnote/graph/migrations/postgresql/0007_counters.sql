-- graph/0007 on PostgreSQL (twin of ../0007_counters.sql): counters kept with every write for
-- the explorer and approval pages, by PL/pgSQL triggers doing what SQLite's do, statement for
-- statement; graph/counters.py holds the same counts as queries for `check` and `rebuild`.
CREATE TABLE tally (name TEXT PRIMARY KEY, n BIGINT NOT NULL);
CREATE TABLE log_tally (
  grant_id TEXT NOT NULL, operation TEXT NOT NULL, n BIGINT NOT NULL,
  PRIMARY KEY (grant_id, operation));
CREATE TABLE pending_item (
  kind TEXT NOT NULL CHECK (kind IN ('entity','link')), id TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (kind, id));
CREATE INDEX pending_item_at ON pending_item(at, id, kind);
-- The tree's top level, which otherwise reads every entity's versions for a page of 50.
CREATE INDEX entity_version_parent ON entity_version(parent_id);

-- PL/pgSQL, not SQL functions: Citus cannot plan an SQL function's statements that use its
-- parameters ("could not create distributed plan").
CREATE OR REPLACE FUNCTION tally_add(counter text, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tally (name, n) VALUES (counter, delta) ON CONFLICT (name) DO UPDATE SET n = tally.n + delta;
END $$;

CREATE OR REPLACE FUNCTION pending_item_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_add('pending:' || NEW.kind, 1);
  RETURN NULL;
END $$;
CREATE TRIGGER pending_item_added AFTER INSERT ON pending_item
FOR EACH ROW EXECUTE FUNCTION pending_item_added();
CREATE OR REPLACE FUNCTION pending_item_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tally SET n = n - 1 WHERE name = 'pending:' || OLD.kind;
  DELETE FROM tally WHERE n = 0;
  RETURN NULL;
END $$;
CREATE TRIGGER pending_item_removed AFTER DELETE ON pending_item
FOR EACH ROW EXECUTE FUNCTION pending_item_removed();

-- Whether one entity waits, from its versions (PENDING_VERSIONS_SQL for one id).
CREATE OR REPLACE FUNCTION pending_entity_refresh(entity_key text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pending_item WHERE kind = 'entity' AND id = entity_key;
  WITH waiting AS (
    SELECT v.id, max(v.changed_at) AS at FROM entity_version v
    WHERE v.id = entity_key AND v.channel IN ('mcp','api') AND v.version >
      coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = entity_key
        AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
             WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
    GROUP BY v.id)
  INSERT INTO pending_item (kind, id, at) SELECT 'entity', id, at FROM waiting;
END $$;

CREATE OR REPLACE FUNCTION entity_version_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prior entity_version%ROWTYPE;
BEGIN
  SELECT * INTO prior FROM entity_version WHERE id = NEW.id AND version = NEW.version - 1;
  IF prior.id IS NOT NULL AND prior.status <> 'archived' THEN
    UPDATE tally SET n = n - 1 WHERE name = 'entities:' || prior.type;
    IF prior.parent_id IS NULL THEN
      UPDATE tally SET n = n - 1 WHERE name = 'top_level';
    END IF;
  END IF;
  IF NEW.status <> 'archived' THEN
    PERFORM tally_add('entities:' || NEW.type, 1);
    IF NEW.parent_id IS NULL THEN
      PERFORM tally_add('top_level', 1);
    END IF;
  END IF;
  PERFORM pending_entity_refresh(NEW.id);
  DELETE FROM tally WHERE n = 0;
  RETURN NULL;
END $$;
CREATE TRIGGER entity_version_counted AFTER INSERT ON entity_version
FOR EACH ROW EXECUTE FUNCTION entity_version_counted();

CREATE OR REPLACE FUNCTION review_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF substr(NEW.target, 1, 5) = 'link/' THEN
    DELETE FROM pending_item WHERE kind = 'link' AND id = substr(NEW.target, 6);
  ELSIF substr(NEW.target, 1, 7) = 'entity/' THEN
    PERFORM pending_entity_refresh(split_part(substr(NEW.target, 8), '@', 1));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER review_counted AFTER INSERT ON review
FOR EACH ROW EXECUTE FUNCTION review_counted();

CREATE OR REPLACE FUNCTION link_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.origin = 'proposed' AND NEW.valid_to IS NULL
     AND NOT EXISTS (SELECT 1 FROM review r WHERE r.target = 'link/' || NEW.id) THEN
    INSERT INTO pending_item (kind, id, at) VALUES ('link', NEW.id, NEW.created_at);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER link_counted AFTER INSERT ON link FOR EACH ROW EXECUTE FUNCTION link_counted();
CREATE OR REPLACE FUNCTION link_end_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pending_item WHERE kind = 'link' AND id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER link_end_counted AFTER UPDATE OF valid_to ON link
FOR EACH ROW WHEN (NEW.valid_to IS NOT NULL) EXECUTE FUNCTION link_end_counted();

CREATE OR REPLACE FUNCTION source_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_add('sources:' || NEW.kind, 1);
  RETURN NULL;
END $$;
CREATE TRIGGER source_counted AFTER INSERT ON source FOR EACH ROW EXECUTE FUNCTION source_counted();

CREATE OR REPLACE FUNCTION search_log_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO log_tally (grant_id, operation, n) VALUES (NEW.grant_id, NEW.operation, 1)
    ON CONFLICT (grant_id, operation) DO UPDATE SET n = log_tally.n + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER search_log_counted AFTER INSERT ON search_log
FOR EACH ROW EXECUTE FUNCTION search_log_counted();

-- A decision's rule and the rule it supersedes: counted out before, in after (as in SQLite).
CREATE OR REPLACE FUNCTION rule_status_count(rule_key text, delta bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_add('rules:' || st.status, delta) FROM rule_state st WHERE st.id = rule_key;
  PERFORM tally_add('rules:' || st.status, delta) FROM rule r
    JOIN rule_state st ON st.id = r.supersedes WHERE r.id = rule_key;
END $$;
CREATE OR REPLACE FUNCTION rule_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_add('rules:' || st.status, 1) FROM rule_state st WHERE st.id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER rule_counted AFTER INSERT ON rule FOR EACH ROW EXECUTE FUNCTION rule_counted();
CREATE OR REPLACE FUNCTION rule_decision_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rule_status_count(NEW.rule_id, -1);
  RETURN NEW;
END $$;
CREATE TRIGGER rule_decision_uncounted BEFORE INSERT ON rule_decision
FOR EACH ROW EXECUTE FUNCTION rule_decision_uncounted();
CREATE OR REPLACE FUNCTION rule_decision_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rule_status_count(NEW.rule_id, 1);
  DELETE FROM tally WHERE n = 0;
  RETURN NULL;
END $$;
CREATE TRIGGER rule_decision_counted AFTER INSERT ON rule_decision
FOR EACH ROW EXECUTE FUNCTION rule_decision_counted();

-- What the store holds already (graph/counters.py's fill_counters does the same).
-- As a CTE: Citus 13.2 deparses INSERT … SELECT … GROUP BY with this correlated subquery into
-- invalid SQL for the worker ("AND ( IS NOT NULL)").
WITH waiting AS (
  SELECT v.id, max(v.changed_at) AS at FROM entity_version v WHERE v.channel IN ('mcp','api')
    AND v.version > coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = v.id
      AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
           WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
  GROUP BY v.id)
INSERT INTO pending_item (kind, id, at) SELECT 'entity', id, at FROM waiting;
INSERT INTO pending_item (kind, id, at)
  SELECT 'link', l.id, l.created_at FROM link l WHERE l.origin = 'proposed' AND l.valid_to IS NULL
    AND NOT EXISTS (SELECT 1 FROM review r WHERE r.target = 'link/' || l.id);
DELETE FROM tally;
INSERT INTO tally (name, n) SELECT name, n FROM (
  SELECT 'entities:' || type AS name, count(*) AS n FROM entity_current
    WHERE status <> 'archived' GROUP BY type
  UNION ALL SELECT 'top_level', count(*) FROM entity_current
    WHERE status <> 'archived' AND parent_id IS NULL
  UNION ALL SELECT 'rules:' || status, count(*) FROM rule_state GROUP BY status
  UNION ALL SELECT 'sources:' || kind, count(*) FROM source GROUP BY kind
  UNION ALL SELECT 'pending:' || kind, count(*) FROM pending_item GROUP BY kind) c WHERE n > 0;
INSERT INTO log_tally (grant_id, operation, n)
  SELECT grant_id, operation, count(*) FROM search_log GROUP BY grant_id, operation;
