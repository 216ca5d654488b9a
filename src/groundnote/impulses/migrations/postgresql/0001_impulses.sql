-- Impulses (PostgreSQL twin of ../0001_impulses.sql; seed 003, DESIGN §11): concept-db's tables
-- in the instance schema. Every row carries the
-- org it belongs to; code filters every query by the caller's org, and the triggers below are
-- the backstop that keeps an edge, a usage row or a sequence inside its concepts' org.

CREATE TABLE concept (
  id TEXT PRIMARY KEY CHECK (id ~ '^concept:.'),
  org_id TEXT NOT NULL CHECK (length(org_id) > 0),
  project_id TEXT,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
  shape TEXT NOT NULL CHECK (length(shape) BETWEEN 1 AND 200),
  summary TEXT,
  content TEXT,
  priority DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (priority BETWEEN 0 AND 1),
  budget BIGINT CHECK (budget IS NULL OR budget >= 0),
  scope TEXT NOT NULL DEFAULT 'global',
  public BIGINT NOT NULL DEFAULT 0 CHECK (public IN (0, 1)),
  metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  source_type TEXT,
  signature_pointer_type TEXT,
  signature_shape TEXT,
  loads BIGINT NOT NULL DEFAULT 0 CHECK (loads >= 0),
  credits BIGINT NOT NULL DEFAULT 0 CHECK (credits >= 0),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  updated_at TEXT NOT NULL CHECK (updated_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  CHECK ((signature_pointer_type IS NULL) = (signature_shape IS NULL)));
CREATE INDEX concept_org ON concept(org_id, created_at);
CREATE INDEX concept_org_loads ON concept(org_id, loads);
CREATE UNIQUE INDEX concept_signature ON concept(org_id, signature_pointer_type, signature_shape)
  WHERE signature_pointer_type IS NOT NULL;

CREATE TABLE concept_edge (
  id TEXT PRIMARY KEY CHECK (id ~ '^edge:.'),
  org_id TEXT NOT NULL,
  from_concept_id TEXT NOT NULL REFERENCES concept(id),
  to_concept_id TEXT NOT NULL REFERENCES concept(id),
  edge_type TEXT NOT NULL CHECK (length(edge_type) BETWEEN 1 AND 100),
  weight DOUBLE PRECISION NOT NULL CHECK (weight BETWEEN 0 AND 1),
  count BIGINT NOT NULL DEFAULT 1 CHECK (count >= 1),
  metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  updated_at TEXT NOT NULL CHECK (updated_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  UNIQUE (org_id, from_concept_id, to_concept_id, edge_type));
CREATE INDEX concept_edge_to ON concept_edge(org_id, to_concept_id);
CREATE INDEX concept_edge_type ON concept_edge(org_id, edge_type, weight);

CREATE OR REPLACE FUNCTION concept_edge_same_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT org_id FROM concept WHERE id = NEW.from_concept_id) IS DISTINCT FROM NEW.org_id
     OR (SELECT org_id FROM concept WHERE id = NEW.to_concept_id) IS DISTINCT FROM NEW.org_id THEN
    RAISE EXCEPTION 'link-endpoint-unknown' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER concept_edge_same_org BEFORE INSERT ON concept_edge FOR EACH ROW EXECUTE FUNCTION concept_edge_same_org();

CREATE TABLE concept_usage (
  id TEXT PRIMARY KEY CHECK (id ~ '^usage:.'),
  org_id TEXT NOT NULL,
  concept_id TEXT NOT NULL REFERENCES concept(id),
  trace_id TEXT,
  activity_execution_id TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'partial', 'unknown')),
  metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  at TEXT NOT NULL CHECK (at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
CREATE INDEX concept_usage_concept ON concept_usage(org_id, concept_id, at);
CREATE INDEX concept_usage_trace ON concept_usage(org_id, trace_id);

CREATE OR REPLACE FUNCTION concept_usage_same_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT org_id FROM concept WHERE id = NEW.concept_id) IS DISTINCT FROM NEW.org_id THEN
    RAISE EXCEPTION 'link-endpoint-unknown' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER concept_usage_same_org BEFORE INSERT ON concept_usage FOR EACH ROW EXECUTE FUNCTION concept_usage_same_org();

CREATE TABLE concept_sequence (
  id TEXT PRIMARY KEY CHECK (id ~ '^sequence:.'),
  org_id TEXT NOT NULL,
  name TEXT,
  concept_ids TEXT NOT NULL CHECK (json_valid(concept_ids) AND json_type(concept_ids) = 'array'
                                    AND json_array_length(concept_ids) >= 1),
  trace_id TEXT,
  activity_execution_id TEXT,
  outcome TEXT CHECK (outcome IS NULL OR outcome IN ('success', 'failure', 'partial', 'unknown')),
  metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
CREATE INDEX concept_sequence_org ON concept_sequence(org_id, created_at);
CREATE INDEX concept_sequence_trace ON concept_sequence(org_id, trace_id);

-- The members of a sequence, one row each, so "sequences containing concept X" is an index
-- lookup and a member must be a concept of the sequence's org.
CREATE TABLE concept_sequence_member (
  sequence_id TEXT NOT NULL REFERENCES concept_sequence(id),
  position BIGINT NOT NULL CHECK (position >= 0),
  concept_id TEXT NOT NULL REFERENCES concept(id),
  PRIMARY KEY (sequence_id, position));
CREATE INDEX concept_sequence_member_concept ON concept_sequence_member(concept_id);

CREATE OR REPLACE FUNCTION concept_sequence_member_same_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT org_id FROM concept WHERE id = NEW.concept_id)
     IS DISTINCT FROM (SELECT org_id FROM concept_sequence WHERE id = NEW.sequence_id) THEN
    RAISE EXCEPTION 'link-endpoint-unknown' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER concept_sequence_member_same_org BEFORE INSERT ON concept_sequence_member FOR EACH ROW EXECUTE FUNCTION concept_sequence_member_same_org();

-- The impulse table with exactly the seed's fields and indexes. expires_at NULL: persistent.
CREATE TABLE impulse (
  id TEXT PRIMARY KEY CHECK (id ~ '^impulse:.'),
  pointer TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(pointer) AND json_type(pointer) = 'object'),
  shape TEXT NOT NULL CHECK (length(shape) > 0),
  summary TEXT,
  content TEXT,
  metadata TEXT CHECK (metadata IS NULL OR (json_valid(metadata) AND json_type(metadata) = 'object')),
  org_id TEXT NOT NULL CHECK (length(org_id) > 0),
  project_id TEXT,
  created_at TEXT NOT NULL CHECK (created_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  created_by_activity_id TEXT,
  created_by_resolver_id TEXT,
  expires_at TEXT CHECK (expires_at IS NULL OR expires_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'));
CREATE INDEX idx_impulse_org ON impulse(org_id);
CREATE INDEX idx_impulse_shape ON impulse(shape);
CREATE INDEX idx_impulse_created ON impulse(created_at);
CREATE INDEX idx_impulse_expires ON impulse(expires_at);
CREATE INDEX idx_impulse_activity ON impulse(created_by_activity_id);
