-- Grants (PostgreSQL twin of ../0001_grants.sql). Only a hash of the secret is kept.
-- The json_*/seq4/append_only functions come from store/postgres_functions.sql, made with the schema.

CREATE TABLE grant_ (
  id TEXT PRIMARY KEY CHECK (id ~ '^grant:.'),
  secret_sha256 TEXT NOT NULL UNIQUE,
  org TEXT NOT NULL DEFAULT 'local',
  channels TEXT NOT NULL CHECK (json_valid(channels) AND json_type(channels) = 'array'),
  rights TEXT NOT NULL CHECK (json_valid(rights) AND json_type(rights) = 'object'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  expires_at TEXT CHECK (expires_at IS NULL OR expires_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  revoked_at TEXT CHECK (revoked_at IS NULL OR revoked_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
