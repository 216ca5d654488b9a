-- graph/0011 on PostgreSQL: the two triggers of an entity_create made shorter, with the same
-- refusals and the same counters.
--
-- Waiting entities. 0009's entity_version_counted hands every entity it saw to
-- pending_entities_refresh, which deletes its pending_item row and derives it again from all
-- its versions and their reviews. A first version belongs to an entity no earlier statement
-- wrote (ids are max+1, never reused): nothing of it waited before, and it waits exactly when
-- an agent wrote it (channel mcp or api) and no person reviewed it yet. A statement of first
-- versions only now inserts those rows directly, asking each entity's review by its key; any
-- other statement takes 0009's path unchanged. An empty statement adds nothing, as before.
--
-- Version rules. 0002's entity_version_rules read the version before NEW by its key and then
-- the newest version by another lookup; once the gap check has passed the two are the same
-- row, so the newest is read once (a backward scan of the primary key) and the gap checked
-- against it. The refusals and their order are 0002's.
CREATE OR REPLACE FUNCTION entity_version_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  prior entity_version%ROWTYPE;
  names text[] := '{}';
  deltas bigint[] := '{}';
  entity_keys text[];
  firsts boolean := true;
  waiting_ids text[] := '{}';
  waiting_ats text[] := '{}';
BEGIN
  FOR r IN SELECT id, version, type, parent_id, status, channel, changed_at FROM added LOOP
    IF r.version = 1 THEN
      IF r.channel IN ('mcp','api')
         AND NOT EXISTS (SELECT 1 FROM review WHERE target = 'entity/' || r.id || '@1') THEN
        waiting_ids := waiting_ids || r.id;
        waiting_ats := waiting_ats || r.changed_at;
      END IF;
    ELSE
      firsts := false;
      SELECT * INTO prior FROM entity_version WHERE id = r.id AND version = r.version - 1;
      IF prior.id IS NOT NULL AND prior.status <> 'archived' THEN
        names := names || ('entities:' || prior.type);
        deltas := deltas || (-1)::bigint;
        IF prior.parent_id IS NULL THEN
          names := names || 'top_level'::text;
          deltas := deltas || (-1)::bigint;
        END IF;
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
  IF firsts THEN
    IF cardinality(waiting_ids) > 0 THEN
      INSERT INTO pending_item (kind, id, at)
        SELECT 'entity', u.id, u.at FROM unnest(waiting_ids, waiting_ats) AS u(id, at);
    END IF;
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT id) INTO entity_keys FROM added;
  PERFORM pending_entities_refresh(entity_keys);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION entity_version_rules() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  prior entity_version%ROWTYPE;
BEGIN
  SELECT * INTO prior FROM entity_version WHERE id = NEW.id ORDER BY version DESC LIMIT 1;
  IF NEW.version <> 1 + coalesce(prior.version, 0) THEN
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
