-- Grants: who may call which operation on which scope over which channel.
-- Only a hash of the secret is kept; the token is shown once when the grant is created.
CREATE TABLE grant_ (
  id TEXT PRIMARY KEY CHECK (id GLOB 'grant:?*'),
  secret_sha256 TEXT NOT NULL UNIQUE,
  org TEXT NOT NULL DEFAULT 'local',
  channels TEXT NOT NULL CHECK (json_valid(channels) AND json_type(channels) = 'array'),
  rights TEXT NOT NULL CHECK (json_valid(rights) AND json_type(rights) = 'object'),
  created_at TEXT NOT NULL CHECK (created_at GLOB '????-??-??T??:??:??*Z'),
  expires_at TEXT CHECK (expires_at IS NULL OR expires_at GLOB '????-??-??T??:??:??*Z'),
  revoked_at TEXT CHECK (revoked_at IS NULL OR revoked_at GLOB '????-??-??T??:??:??*Z'));
