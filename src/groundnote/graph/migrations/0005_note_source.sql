-- graph/0005: a `note` source kind beside mail and meeting (DESIGN §15 P7): `note:<id>`, a
-- short text with date and author, for observations (and what other memory servers call
-- observations, when their data is imported). SQLite cannot widen a CHECK in place, so the
-- source table is rebuilt; it lives here, not in core, because link_endpoints (graph/0002)
-- names the table and must be recreated around the rebuild, as 0002 rebuilt search_log;
-- recreated, it looks its ends up by key (below).
-- The children (source_attachment, rule_evidence) keep their rows; their foreign keys are
-- checked at commit, once the new table holds every parent again.
PRAGMA defer_foreign_keys = ON;
DROP TRIGGER link_endpoints;
CREATE TABLE source_new (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE CHECK (id GLOB 'mail:<?*>' OR id GLOB 'jamie:?*' OR id GLOB 'note:?*'),
  kind TEXT NOT NULL CHECK (kind IN ('mail','meeting','note')),
  title TEXT NOT NULL,
  day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  sent_at TEXT CHECK (sent_at IS NULL OR sent_at GLOB '????-??-??T??:??:??*Z'),
  sender TEXT,
  recipients TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(recipients)),
  cc TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(cc)),
  in_reply_to TEXT,
  refs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(refs)),
  participants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(participants)),
  body TEXT NOT NULL,
  content_sha256 TEXT NOT NULL,
  stored_at TEXT NOT NULL CHECK (stored_at GLOB '????-??-??T??:??:??*Z'),
  stored_by TEXT NOT NULL,
  CHECK ((kind = 'mail') = (id GLOB 'mail:*')),
  CHECK ((kind = 'note') = (id GLOB 'note:*')));
INSERT INTO source_new (seq, id, kind, title, day, sent_at, sender, recipients, cc, in_reply_to,
    refs, participants, body, content_sha256, stored_at, stored_by)
  SELECT seq, id, kind, title, day, sent_at, sender, recipients, cc, in_reply_to,
    refs, participants, body, content_sha256, stored_at, stored_by FROM source;
DROP TABLE source;
ALTER TABLE source_new RENAME TO source;
CREATE INDEX source_reply ON source(in_reply_to);
CREATE INDEX source_day ON source(day);
CREATE TRIGGER source_no_update BEFORE UPDATE ON source BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER source_no_delete BEFORE DELETE ON source BEGIN SELECT RAISE(ABORT, 'append-only'); END;
-- link_endpoints again, the same refusals, each end looked up by its key: the ref's prefix
-- names the table and the rest is the id, where 0002 compared 'entity/' || id row by row (a
-- scan of the entity table per link, quadratic in an import). Archived is terminal, so an
-- end is archived when any of its versions is.
CREATE TRIGGER link_endpoints BEFORE INSERT ON link BEGIN
  SELECT RAISE(ABORT, 'link-endpoint-unknown') WHERE NOT (
       (substr(NEW.from_ref, 1, 5) = 'rule/' AND EXISTS (SELECT 1 FROM rule WHERE id = substr(NEW.from_ref, 6)))
    OR (substr(NEW.from_ref, 1, 7) = 'entity/' AND EXISTS (SELECT 1 FROM entity WHERE id = substr(NEW.from_ref, 8)))
    OR (substr(NEW.from_ref, 1, 7) = 'source/' AND EXISTS (SELECT 1 FROM source WHERE id = substr(NEW.from_ref, 8)))
    OR (substr(NEW.from_ref, 1, 11) = 'attachment/' AND EXISTS (SELECT 1 FROM source_attachment
          WHERE 'attachment/' || source_id || '#' || n = NEW.from_ref)));
  SELECT RAISE(ABORT, 'link-endpoint-unknown') WHERE NOT (
       (substr(NEW.to_ref, 1, 5) = 'rule/' AND EXISTS (SELECT 1 FROM rule WHERE id = substr(NEW.to_ref, 6)))
    OR (substr(NEW.to_ref, 1, 7) = 'entity/' AND EXISTS (SELECT 1 FROM entity WHERE id = substr(NEW.to_ref, 8)))
    OR (substr(NEW.to_ref, 1, 7) = 'source/' AND EXISTS (SELECT 1 FROM source WHERE id = substr(NEW.to_ref, 8)))
    OR (substr(NEW.to_ref, 1, 11) = 'attachment/' AND EXISTS (SELECT 1 FROM source_attachment
          WHERE 'attachment/' || source_id || '#' || n = NEW.to_ref)));
  SELECT RAISE(ABORT, 'entity-archived') WHERE EXISTS (SELECT 1 FROM entity_version
    WHERE id IN (substr(NEW.from_ref, 8), substr(NEW.to_ref, 8)) AND status = 'archived'
      AND 'entity/' || id IN (NEW.from_ref, NEW.to_ref));
END;
