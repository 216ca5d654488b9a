-- graph/0010 on PostgreSQL: 0009's counters, with the path a capability's write takes made
-- short.
--
-- Plans. PL/pgSQL plans a statement with the call's values for its first five runs and then
-- keeps a generic plan only if it looks no dearer. For pending_entities_refresh's query over
-- an array of keys it never did (the generic plan expects hundreds of keys), so every entity
-- write planned that query anew. One key, what every capability's write hands it, now has a
-- statement of its own on a scalar, whose generic plan is kept: 1,000 creates' entity and
-- version inserts took 470-480 ms in one session, 310-370 ms with it. (Forcing generic plans
-- on the functions did as well on PostgreSQL, but Citus cannot plan those: "could not create
-- distributed plan".)
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


CREATE OR REPLACE FUNCTION pending_entities_refresh(entity_keys text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  one text;
BEGIN
  IF cardinality(entity_keys) = 1 THEN
    one := entity_keys[1];
    DELETE FROM pending_item WHERE kind = 'entity' AND id = one;
    -- WITH … INSERT, as 0007's fill: Citus deparses INSERT … SELECT … GROUP BY with a
    -- correlated subquery into SQL its workers refuse.
    WITH waiting AS (
      SELECT v.id, max(v.changed_at) AS at FROM entity_version v
      WHERE v.id = one AND v.channel IN ('mcp','api') AND v.version >
        coalesce((SELECT max(a.version) FROM entity_version a WHERE a.id = one
          AND (a.channel = 'approval' OR EXISTS (SELECT 1 FROM review r
               WHERE r.target = 'entity/' || a.id || '@' || a.version))), 0)
      GROUP BY v.id)
    INSERT INTO pending_item (kind, id, at) SELECT 'entity', id, at FROM waiting;
    RETURN;
  END IF;
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
