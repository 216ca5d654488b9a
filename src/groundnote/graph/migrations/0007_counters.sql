-- graph/0007: counters kept with every write, for the explorer and approval pages (issue 18),
-- which otherwise count whole views per request (at 100,000 entities the pending entities alone
-- took 0.9 s). Kept by triggers, so every writer (the write functions, an import, another
-- process) keeps them in the same transaction as the row it writes; graph/counters.py holds
-- the same counts as queries for `groundnote check` and `groundnote rebuild counters`.
-- Here and not in core: graph's 0004 and 0005 rebuilt search_log and source, so the triggers on
-- them belong after those; and rules' counts sit beside the others in one table.
--
-- tally: name → count, a name counted down to 0 removed (as a recount leaves it). 'entities:<type>' and 'top_level' (entity_current, archived left out),
-- 'rules:<status>' (rule_state), 'sources:<kind>', 'pending:entity' and 'pending:link'.
CREATE TABLE tally (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
-- The operation log counted by who and what, for the activity page's totals and its filters.
CREATE TABLE log_tally (
  grant_id TEXT NOT NULL, operation TEXT NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (grant_id, operation)) WITHOUT ROWID;
-- What waits for a person, newest first: the entities PENDING_VERSIONS_SQL holds versions of
-- (at = their newest pending version's time) and the links of PENDING_LINKS_SQL (at = created).
CREATE TABLE pending_item (
  kind TEXT NOT NULL CHECK (kind IN ('entity','link')), id TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (kind, id)) WITHOUT ROWID;
CREATE INDEX pending_item_at ON pending_item(at, id, kind);
-- The tree's top level, which otherwise reads every entity's versions for a page of 50.
CREATE INDEX entity_version_parent ON entity_version(parent_id);

CREATE TRIGGER pending_item_added AFTER INSERT ON pending_item BEGIN
  INSERT INTO tally (name, n) SELECT 'pending:' || NEW.kind, 1 WHERE 1
    ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER pending_item_removed AFTER DELETE ON pending_item BEGIN
  UPDATE tally SET n = n - 1 WHERE name = 'pending:' || OLD.kind;
  DELETE FROM tally WHERE n = 0;
END;

-- An entity's new version: its old current state counted out, the new one in, and whether it
-- waits recomputed from its versions (a few rows, by key).
CREATE TRIGGER entity_version_counted AFTER INSERT ON entity_version BEGIN
  UPDATE tally SET n = n - 1 WHERE name = (SELECT 'entities:' || p.type FROM entity_version p
    WHERE p.id = NEW.id AND p.version = NEW.version - 1 AND p.status <> 'archived');
  UPDATE tally SET n = n - 1 WHERE name = 'top_level' AND EXISTS (SELECT 1 FROM entity_version p
    WHERE p.id = NEW.id AND p.version = NEW.version - 1 AND p.status <> 'archived'
      AND p.parent_id IS NULL);
  INSERT INTO tally (name, n) SELECT 'entities:' || NEW.type, 1 WHERE NEW.status <> 'archived'
    ON CONFLICT (name) DO UPDATE SET n = n + 1;
  INSERT INTO tally (name, n) SELECT 'top_level', 1
    WHERE NEW.status <> 'archived' AND NEW.parent_id IS NULL
    ON CONFLICT (name) DO UPDATE SET n = n + 1;
  DELETE FROM pending_item WHERE kind = 'entity' AND id = NEW.id;
  INSERT INTO pending_item (kind, id, at)
    SELECT 'entity', v.id, max(v.changed_at) FROM entity_version v
    WHERE v.id = NEW.id AND v.channel IN ('mcp','api') AND v.version >
      coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = NEW.id
        AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
             WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
    GROUP BY v.id;
  DELETE FROM tally WHERE n = 0;
END;

-- A review settles an entity's versions up to the one it names, or a proposed link.
CREATE TRIGGER review_counted AFTER INSERT ON review BEGIN
  DELETE FROM pending_item WHERE kind = 'link' AND substr(NEW.target, 1, 5) = 'link/'
    AND id = substr(NEW.target, 6);
  DELETE FROM pending_item WHERE kind = 'entity' AND substr(NEW.target, 1, 7) = 'entity/'
    AND id = substr(NEW.target, 8, instr(NEW.target, '@') - 8);
  INSERT INTO pending_item (kind, id, at)
    SELECT 'entity', v.id, max(v.changed_at) FROM entity_version v
    WHERE substr(NEW.target, 1, 7) = 'entity/'
      AND v.id = substr(NEW.target, 8, instr(NEW.target, '@') - 8)
      AND v.channel IN ('mcp','api') AND v.version >
      coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = v.id
        AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
             WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
    GROUP BY v.id;
END;

CREATE TRIGGER link_counted AFTER INSERT ON link BEGIN
  INSERT INTO pending_item (kind, id, at) SELECT 'link', NEW.id, NEW.created_at
    WHERE NEW.origin = 'proposed' AND NEW.valid_to IS NULL
      AND NOT EXISTS (SELECT 1 FROM review r WHERE r.target = 'link/' || NEW.id);
END;
CREATE TRIGGER link_end_counted AFTER UPDATE OF valid_to ON link
WHEN NEW.valid_to IS NOT NULL BEGIN
  DELETE FROM pending_item WHERE kind = 'link' AND id = NEW.id;
END;

CREATE TRIGGER source_counted AFTER INSERT ON source BEGIN
  INSERT INTO tally (name, n) SELECT 'sources:' || NEW.kind, 1 WHERE 1
    ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER search_log_counted AFTER INSERT ON search_log BEGIN
  INSERT INTO log_tally (grant_id, operation, n) SELECT NEW.grant_id, NEW.operation, 1 WHERE 1
    ON CONFLICT (grant_id, operation) DO UPDATE SET n = n + 1;
END;

-- A rule's status is derived (rule_state): a decision changes its own and, by adopting or
-- undoing the adoption of a successor, the status of the rule it supersedes. Both are counted
-- out as they were before the decision and in as they are after it.
CREATE TRIGGER rule_counted AFTER INSERT ON rule BEGIN
  INSERT INTO tally (name, n) SELECT 'rules:' || st.status, 1 FROM rule_state st
    WHERE st.id = NEW.id ON CONFLICT (name) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER rule_decision_uncounted BEFORE INSERT ON rule_decision BEGIN
  UPDATE tally SET n = n - 1
    WHERE name = (SELECT 'rules:' || st.status FROM rule_state st WHERE st.id = NEW.rule_id);
  UPDATE tally SET n = n - 1 WHERE name = (SELECT 'rules:' || st.status FROM rule r
    JOIN rule_state st ON st.id = r.supersedes WHERE r.id = NEW.rule_id);
END;
CREATE TRIGGER rule_decision_counted AFTER INSERT ON rule_decision BEGIN
  INSERT INTO tally (name, n) SELECT 'rules:' || st.status, 1 FROM rule_state st
    WHERE st.id = NEW.rule_id ON CONFLICT (name) DO UPDATE SET n = n + 1;
  INSERT INTO tally (name, n) SELECT 'rules:' || st.status, 1 FROM rule r
    JOIN rule_state st ON st.id = r.supersedes WHERE r.id = NEW.rule_id
    ON CONFLICT (name) DO UPDATE SET n = n + 1;
  DELETE FROM tally WHERE n = 0;
END;

-- What the store holds already (graph/counters.py's fill_counters does the same).
INSERT INTO pending_item (kind, id, at)
  SELECT 'entity', v.id, max(v.changed_at) FROM entity_version v WHERE v.channel IN ('mcp','api')
    AND v.version > coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = v.id
      AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
           WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
  GROUP BY v.id;
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
