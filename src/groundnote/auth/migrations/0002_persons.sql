-- Persons: the people who decide on the approval channel (`person:<name>`, an email identity),
-- their one-time login links and their sessions. Only hashes of the secrets are kept.
CREATE TABLE person (
  id TEXT PRIMARY KEY CHECK (id GLOB 'person:?*'),
  email TEXT NOT NULL CHECK (email GLOB '?*@?*'),
  org TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL CHECK (created_at GLOB '????-??-??T??:??:??*Z'),
  disabled_at TEXT CHECK (disabled_at IS NULL OR disabled_at GLOB '????-??-??T??:??:??*Z'));

CREATE TABLE person_login (                -- one-time login links: used once, then never again
  token_sha256 TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES person(id),
  created_at TEXT NOT NULL CHECK (created_at GLOB '????-??-??T??:??:??*Z'),
  expires_at TEXT NOT NULL CHECK (expires_at GLOB '????-??-??T??:??:??*Z'),
  used_at TEXT CHECK (used_at IS NULL OR used_at GLOB '????-??-??T??:??:??*Z'));
CREATE TRIGGER person_login_once BEFORE UPDATE ON person_login
WHEN OLD.used_at IS NOT NULL OR NEW.token_sha256 IS NOT OLD.token_sha256
  OR NEW.person_id IS NOT OLD.person_id OR NEW.expires_at IS NOT OLD.expires_at
BEGIN SELECT RAISE(ABORT, 'login-link-used'); END;

CREATE TABLE person_session (
  token_sha256 TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES person(id),
  csrf TEXT NOT NULL CHECK (length(csrf) >= 32),   -- the form token of this session
  created_at TEXT NOT NULL CHECK (created_at GLOB '????-??-??T??:??:??*Z'),
  expires_at TEXT NOT NULL CHECK (expires_at GLOB '????-??-??T??:??:??*Z'),
  ended_at TEXT CHECK (ended_at IS NULL OR ended_at GLOB '????-??-??T??:??:??*Z'));
CREATE INDEX person_session_person ON person_session(person_id);
