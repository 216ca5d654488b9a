-- graph/0008: the embedding of each current name and alias of an entity (issue 19), the last
-- tier of entity_resolve: a projection of entity_current (groundnote rebuild vectors), one row
-- per text, of the model named in `model`; archived entities keep theirs, as in entity_fts.
CREATE TABLE entity_vector (
  seq BIGINT NOT NULL,                                 -- entity.seq
  text TEXT NOT NULL,                                  -- the name or alias, as written
  model TEXT NOT NULL,
  dim INTEGER NOT NULL CHECK (dim > 0),
  vector BYTEA NOT NULL CHECK (length(vector) = 4 * dim),  -- float32, little-endian, unit length
  PRIMARY KEY (seq, text));
