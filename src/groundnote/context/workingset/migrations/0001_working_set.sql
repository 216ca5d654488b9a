-- The unit-state working set (C-04). Rows with staged = 0 mirror the committed shards;
-- staged = 1 rows are decisions not yet written out by `groundnote context commit`: the one
-- thing in store.db that nothing else holds.
CREATE TABLE unit_states (
  document TEXT NOT NULL,
  unit TEXT NOT NULL,
  variant TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('signed_off', 'needs_work', 'rejected')),
  target_hash TEXT NOT NULL,
  source_basis TEXT NOT NULL,
  by_actor TEXT NOT NULL,
  at TEXT NOT NULL,
  staged INTEGER NOT NULL DEFAULT 0 CHECK (staged IN (0, 1)),
  PRIMARY KEY (document, unit, variant)
);
CREATE INDEX unit_states_staged ON unit_states(staged) WHERE staged = 1;
