-- The embedding of each rule's statement and each source's text: a projection of those
-- texts (groundnote rebuild vectors), one row per text, of the model named in `model`.
-- `id` is assigned max + 1 on every write, so a process's in-memory copy catches up by id.
CREATE TABLE text_vector (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('rule','source')),
  seq INTEGER NOT NULL,                                -- rule.seq or source.seq
  model TEXT NOT NULL,
  dim INTEGER NOT NULL CHECK (dim > 0),
  vector BLOB NOT NULL CHECK (length(vector) = 4 * dim),   -- float32, little-endian, unit length
  UNIQUE (kind, seq));
CREATE INDEX text_vector_model ON text_vector(model, id);
