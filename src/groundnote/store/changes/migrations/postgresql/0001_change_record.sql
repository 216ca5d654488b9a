-- changes/0001 (PostgreSQL twin of ../0001_change_record.sql): the change record of a scope's
-- schema. `seq` is max+1 inside the write transaction, under the scope's write-gate row lock,
-- not from a sequence, whose values commit out of order.
CREATE TABLE change_record (
  seq BIGINT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind <> ''),
  ref TEXT NOT NULL CHECK (ref <> '')
);

-- Keep the newest 100,000 rows, pruned every 1,000th row, as on SQLite.
CREATE OR REPLACE FUNCTION change_record_horizon() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM change_record WHERE seq <= NEW.seq - 100000;
  RETURN NULL;
END $$;
CREATE TRIGGER change_record_horizon AFTER INSERT ON change_record
FOR EACH ROW WHEN (NEW.seq % 1000 = 0) EXECUTE FUNCTION change_record_horizon();
