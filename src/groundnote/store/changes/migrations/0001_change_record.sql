-- changes/0001: the change record of a store file (DESIGN §4 "Several processes, one home").
-- Every write transaction that changes something a process holds in memory adds one row per
-- changed thing; a process catches its caches up by reading the rows after the last seq it
-- saw. `seq` is max+1 inside the write transaction (the write lock is held), so seqs follow
-- commit order without gaps, on PostgreSQL too (there under the scope's write-gate row lock,
-- not from a sequence, whose values commit out of order).
CREATE TABLE change_record (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind <> ''),
  ref TEXT NOT NULL CHECK (ref <> '')
);

-- Keep the newest 100,000 rows: a process further behind than that (it slept through a bulk
-- import) finds the gap and rebuilds instead. Pruned every 1,000th row, so a write seldom pays.
CREATE TRIGGER change_record_horizon AFTER INSERT ON change_record
WHEN NEW.seq % 1000 = 0
BEGIN
  DELETE FROM change_record WHERE seq <= NEW.seq - 100000;
END;
