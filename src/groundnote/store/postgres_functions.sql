-- SQLite's built-in functions that the PostgreSQL migration twins' checks, triggers and
-- statements use, and the trigger function they share. Created once in every schema the store
-- makes (store/postgres.py), before any migration runs, so a twin uses them and defines none.

CREATE OR REPLACE FUNCTION json_valid(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF t IS NULL THEN RETURN NULL; END IF;
  PERFORM t::json;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END $$;

-- SQLite's json_type names: 'array' and 'object' are the ones the checks use, and they agree.
CREATE OR REPLACE FUNCTION json_type(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN json_typeof(t::json);
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION json_array_length(t text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN json_array_length(t::json);
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

-- SQLite's json_patch (RFC 7396 merge patch), e.g. for the impulse edge upsert's metadata. The
-- text is PostgreSQL's jsonb rendering, not SQLite's minified one.
CREATE OR REPLACE FUNCTION json_merge_patch(target jsonb, patch jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  merged jsonb;
  item record;
BEGIN
  IF jsonb_typeof(patch) IS DISTINCT FROM 'object' THEN RETURN patch; END IF;
  merged := CASE WHEN jsonb_typeof(target) = 'object' THEN target ELSE '{}'::jsonb END;
  FOR item IN SELECT key, value FROM jsonb_each(patch) LOOP
    IF jsonb_typeof(item.value) = 'null' THEN
      merged := merged - item.key;
    ELSE
      merged := jsonb_set(merged, ARRAY[item.key], json_merge_patch(merged -> item.key, item.value));
    END IF;
  END LOOP;
  RETURN merged;
END $$;

CREATE OR REPLACE FUNCTION json_patch(target text, patch text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT json_merge_patch(target::jsonb, patch::jsonb)::text
$$;

-- printf('%04d', n): at least four digits, never cut (lpad alone truncates a longer number).
CREATE OR REPLACE FUNCTION seq4(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT lpad(n::text, greatest(4, length(n::text)), '0')
$$;

-- SQLite's RAISE(ABORT, 'append-only') triggers.
CREATE OR REPLACE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;
