-- Persons (PostgreSQL twin of ../0002_persons.sql): the people who decide on the approval
-- channel, their one-time login links and their sessions. Only hashes of the secrets are kept.
CREATE TABLE person (
  id TEXT PRIMARY KEY CHECK (id ~ '^person:.'),
  email TEXT NOT NULL CHECK (email ~ '^.+@.+$'),
  org TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  disabled_at TEXT CHECK (disabled_at IS NULL OR disabled_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));

CREATE TABLE person_login (                -- one-time login links: used once, then never again
  token_sha256 TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES person(id),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  expires_at TEXT NOT NULL CHECK (expires_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  used_at TEXT CHECK (used_at IS NULL OR used_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
CREATE OR REPLACE FUNCTION person_login_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'login-link-used' USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER person_login_once BEFORE UPDATE ON person_login FOR EACH ROW
WHEN (OLD.used_at IS NOT NULL OR NEW.token_sha256 IS DISTINCT FROM OLD.token_sha256
  OR NEW.person_id IS DISTINCT FROM OLD.person_id OR NEW.expires_at IS DISTINCT FROM OLD.expires_at)
EXECUTE FUNCTION person_login_once();

CREATE TABLE person_session (
  token_sha256 TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES person(id),
  csrf TEXT NOT NULL CHECK (length(csrf) >= 32),   -- the form token of this session
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  expires_at TEXT NOT NULL CHECK (expires_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  ended_at TEXT CHECK (ended_at IS NULL OR ended_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
CREATE INDEX person_session_person ON person_session(person_id);
