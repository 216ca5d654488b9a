-- Grants (PostgreSQL twin of ../0001_grants.sql). Only a hash of the secret is kept.
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

CREATE TABLE grant_ (
  id TEXT PRIMARY KEY CHECK (id ~ '^grant:.'),
  secret_sha256 TEXT NOT NULL UNIQUE,
  org TEXT NOT NULL DEFAULT 'local',
  channels TEXT NOT NULL CHECK (json_valid(channels) AND json_type(channels) = 'array'),
  rights TEXT NOT NULL CHECK (json_valid(rights) AND json_type(rights) = 'object'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  expires_at TEXT CHECK (expires_at IS NULL OR expires_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  revoked_at TEXT CHECK (revoked_at IS NULL OR revoked_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
