-- calls/0001: idempotency keys of writes, in the scope file the write went to. The row is
-- written in the write's own transaction, so a key is recorded exactly when its write is.
CREATE TABLE call_key (
  actor TEXT NOT NULL,                                 -- grant:<name> or person:<name>
  key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
  operation TEXT NOT NULL,
  input_sha256 TEXT NOT NULL,
  answer TEXT NOT NULL CHECK (json_valid(answer)),     -- the first answer, as sent
  at TEXT NOT NULL CHECK (at GLOB '????-??-??T??:??:??*Z'),
  PRIMARY KEY (actor, key)) WITHOUT ROWID;
