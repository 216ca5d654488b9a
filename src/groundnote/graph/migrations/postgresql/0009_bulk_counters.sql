-- graph/0009 on PostgreSQL: the same guarantees as 0002 and 0007, paid once per statement.
--
-- Counters. A transaction that updates one row many times leaves every version of it in the
-- table until it ends, and each further update (and 0007's `DELETE FROM tally WHERE n = 0`,
-- a scan) walks them all: an import of n entities was quadratic in n (5,000 entities: 36 s,
-- of them 31 s in pending_item_removed and tally_add). Each counting trigger of 0007 on a
-- table that an import writes in bulk is therefore a statement trigger over the statement's
-- rows (its transition table), adding their net change to each counter once; a statement of
-- one row (every capability's write) counts as before. Only the counters touched are
-- removed at 0. The rule counters stay per row: rules are imported one statement each.
-- The queries on a transition table name no other table (Citus plans those on the worker
-- as local queries); the lookups in other tables are by key, one row each, as in 0007.
--
-- Links: link_known_ref compared 'entity/' || id row by row, a scan of each table per link
-- (an import of n links was quadratic); each end is now looked up by its key, as SQLite's
-- link_endpoints does since its 0005, and an end is archived when any of its versions is
-- (archived is terminal).

CREATE OR REPLACE FUNCTION link_known_ref(ref text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF substr(ref, 1, 5) = 'rule/' THEN
    RETURN EXISTS (SELECT 1 FROM rule WHERE id = substr(ref, 6));
  ELSIF substr(ref, 1, 7) = 'entity/' THEN
    RETURN EXISTS (SELECT 1 FROM entity WHERE id = substr(ref, 8));
  ELSIF substr(ref, 1, 7) = 'source/' THEN
    RETURN EXISTS (SELECT 1 FROM source WHERE id = substr(ref, 8));
  ELSIF substr(ref, 1, 11) = 'attachment/' THEN
    RETURN EXISTS (SELECT 1 FROM source_attachment WHERE 'attachment/' || source_id || '#' || n = ref);
  END IF;
  RETURN false;
END $$;

CREATE OR REPLACE FUNCTION link_endpoints() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT link_known_ref(NEW.from_ref) OR NOT link_known_ref(NEW.to_ref) THEN
    RAISE EXCEPTION 'link-endpoint-unknown' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM entity_version
      WHERE id IN (substr(NEW.from_ref, 8), substr(NEW.to_ref, 8)) AND status = 'archived'
        AND 'entity/' || id IN (NEW.from_ref, NEW.to_ref)) THEN
    RAISE EXCEPTION 'entity-archived' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;

-- The net change of each named counter (names and deltas pairwise, a name may repeat),
-- applied once per counter in name order: added to (or inserted) when it grows, decreased
-- when it shrinks, removed when it reaches 0.
CREATE OR REPLACE FUNCTION tally_apply(names text[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT u.name, sum(u.delta)::bigint AS delta FROM unnest(names, deltas) AS u(name, delta)
      GROUP BY u.name ORDER BY u.name LOOP
    IF c.delta > 0 THEN
      PERFORM tally_add(c.name, c.delta);
    ELSIF c.delta < 0 THEN
      UPDATE tally SET n = n + c.delta WHERE name = c.name;
    END IF;
  END LOOP;
  DELETE FROM tally WHERE name = ANY(names) AND n = 0;
END $$;

-- Whether each of these entities waits, from its versions (PENDING_VERSIONS_SQL for them).
CREATE OR REPLACE FUNCTION pending_entities_refresh(entity_keys text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pending_item WHERE kind = 'entity' AND id = ANY(entity_keys);
  WITH waiting AS (
    SELECT v.id, max(v.changed_at) AS at FROM entity_version v
    WHERE v.id = ANY(entity_keys) AND v.channel IN ('mcp','api') AND v.version >
      coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = v.id
        AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
             WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
    GROUP BY v.id)
  INSERT INTO pending_item (kind, id, at) SELECT 'entity', id, at FROM waiting;
END $$;

DROP TRIGGER pending_item_added ON pending_item;
CREATE OR REPLACE FUNCTION pending_item_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_apply(array_agg('pending:' || kind), array_agg(1::bigint)) FROM added;
  RETURN NULL;
END $$;
CREATE TRIGGER pending_item_added AFTER INSERT ON pending_item
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pending_item_added();

DROP TRIGGER pending_item_removed ON pending_item;
CREATE OR REPLACE FUNCTION pending_item_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_apply(array_agg('pending:' || kind), array_agg(-1::bigint)) FROM removed;
  RETURN NULL;
END $$;
CREATE TRIGGER pending_item_removed AFTER DELETE ON pending_item
REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION pending_item_removed();

DROP TRIGGER entity_version_counted ON entity_version;
CREATE OR REPLACE FUNCTION entity_version_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  prior entity_version%ROWTYPE;
  names text[] := '{}';
  deltas bigint[] := '{}';
  entity_keys text[];
BEGIN
  FOR r IN SELECT id, version, type, parent_id, status FROM added LOOP
    SELECT * INTO prior FROM entity_version WHERE id = r.id AND version = r.version - 1;
    IF prior.id IS NOT NULL AND prior.status <> 'archived' THEN
      names := names || ('entities:' || prior.type);
      deltas := deltas || (-1)::bigint;
      IF prior.parent_id IS NULL THEN
        names := names || 'top_level'::text;
        deltas := deltas || (-1)::bigint;
      END IF;
    END IF;
    IF r.status <> 'archived' THEN
      names := names || ('entities:' || r.type);
      deltas := deltas || 1::bigint;
      IF r.parent_id IS NULL THEN
        names := names || 'top_level'::text;
        deltas := deltas || 1::bigint;
      END IF;
    END IF;
  END LOOP;
  PERFORM tally_apply(names, deltas);
  SELECT array_agg(DISTINCT id) INTO entity_keys FROM added;
  IF entity_keys IS NOT NULL THEN
    PERFORM pending_entities_refresh(entity_keys);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER entity_version_counted AFTER INSERT ON entity_version
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION entity_version_counted();

DROP TRIGGER review_counted ON review;
CREATE OR REPLACE FUNCTION review_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  links text[];
  entity_keys text[];
BEGIN
  SELECT array_agg(substr(target, 6)) FILTER (WHERE substr(target, 1, 5) = 'link/'),
         array_agg(DISTINCT split_part(substr(target, 8), '@', 1))
           FILTER (WHERE substr(target, 1, 7) = 'entity/')
    INTO links, entity_keys FROM added;
  IF links IS NOT NULL THEN
    DELETE FROM pending_item WHERE kind = 'link' AND id = ANY(links);
  END IF;
  IF entity_keys IS NOT NULL THEN
    PERFORM pending_entities_refresh(entity_keys);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER review_counted AFTER INSERT ON review
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION review_counted();
DROP FUNCTION pending_entity_refresh(text);

DROP TRIGGER link_counted ON link;
CREATE OR REPLACE FUNCTION link_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  ids text[] := '{}';
  ats text[] := '{}';
BEGIN
  FOR r IN SELECT id, created_at FROM added WHERE origin = 'proposed' AND valid_to IS NULL LOOP
    IF NOT EXISTS (SELECT 1 FROM review WHERE target = 'link/' || r.id) THEN
      ids := ids || r.id;
      ats := ats || r.created_at;
    END IF;
  END LOOP;
  IF cardinality(ids) > 0 THEN
    INSERT INTO pending_item (kind, id, at) SELECT 'link', u.id, u.at FROM unnest(ids, ats) AS u(id, at);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER link_counted AFTER INSERT ON link
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION link_counted();

DROP TRIGGER source_counted ON source;
CREATE OR REPLACE FUNCTION source_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_apply(array_agg('sources:' || kind), array_agg(1::bigint)) FROM added;
  RETURN NULL;
END $$;
CREATE TRIGGER source_counted AFTER INSERT ON source
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION source_counted();

DROP TRIGGER search_log_counted ON search_log;
CREATE OR REPLACE FUNCTION search_log_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT grant_id, operation, count(*) AS n FROM added
      GROUP BY grant_id, operation ORDER BY grant_id, operation LOOP
    INSERT INTO log_tally (grant_id, operation, n) VALUES (c.grant_id, c.operation, c.n)
      ON CONFLICT (grant_id, operation) DO UPDATE SET n = log_tally.n + EXCLUDED.n;
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER search_log_counted AFTER INSERT ON search_log
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION search_log_counted();
