-- A `groundnote migrate` into this store (store/migrate.py). Its row is written before the
-- first copied row and `finished_at` only after the copy was verified, so a migrate killed
-- half-way leaves a row without `finished_at`, and every open of the home refuses it.
CREATE TABLE migrate_run (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  source TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT);
