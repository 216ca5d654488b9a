-- graph/0010 on PostgreSQL: 0009's counters, with the path a capability's write takes made
-- short.
--
-- Plans. PL/pgSQL plans a statement with the call's values for its first five runs and then
-- keeps a generic plan only if it looks no dearer; for pending_entities_refresh's query over
-- an array of keys it never did, so every entity write planned that query anew (0.2 ms of a
-- create's 0.5 ms in these triggers). The counting functions' statements look rows up by key
-- whatever the values, so they use the generic plan from the start: 1,000 creates' entity
-- and version inserts took 470-480 ms in one session, 290-310 ms with it.
--
-- Fewer statements. An entity create ran tally_apply three times: for its version's counter,
-- for the pending_item rows it removed (none) and for the one it added. Each ran a loop over
-- an aggregate and then a DELETE of the counters at 0: 1,000 creates' inserts took 810 ms in
-- the server, 510-540 ms without. Now a call with no counter returns at once, one counter
-- growing is one upsert, and the counters at 0 are looked for only when one shrank (a counter
-- that only grew cannot be at 0). The sums, the order of the counters and which ones are
-- removed are 0009's.
CREATE OR REPLACE FUNCTION tally_apply(names text[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
  shrank boolean := false;
BEGIN
  IF coalesce(cardinality(names), 0) = 0 THEN
    RETURN;
  END IF;
  IF cardinality(names) = 1 AND deltas[1] > 0 THEN
    INSERT INTO tally (name, n) VALUES (names[1], deltas[1])
      ON CONFLICT (name) DO UPDATE SET n = tally.n + EXCLUDED.n;
    RETURN;
  END IF;
  FOR c IN SELECT u.name, sum(u.delta)::bigint AS delta FROM unnest(names, deltas) AS u(name, delta)
      GROUP BY u.name ORDER BY u.name LOOP
    IF c.delta > 0 THEN
      PERFORM tally_add(c.name, c.delta);
    ELSIF c.delta < 0 THEN
      UPDATE tally SET n = n + c.delta WHERE name = c.name;
      shrank := true;
    END IF;
  END LOOP;
  IF shrank THEN
    DELETE FROM tally WHERE name = ANY(names) AND n = 0;
  END IF;
END $$;

ALTER FUNCTION tally_apply(text[], bigint[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION pending_entities_refresh(text[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION pending_item_added() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION pending_item_removed() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION entity_version_counted() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION review_counted() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION link_counted() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION source_counted() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION search_log_counted() SET plan_cache_mode = force_generic_plan;
