-- calls/0001 (PostgreSQL twin of ../0001_call_keys.sql): idempotency keys of writes, in the
-- scope schema the write went to, written in the write's own transaction.
-- The json_*/seq4/append_only functions come from store/postgres_functions.sql, made with the schema.

CREATE TABLE call_key (
  actor TEXT NOT NULL,                                 -- grant:<name> or person:<name>
  key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
  operation TEXT NOT NULL,
  input_sha256 TEXT NOT NULL,
  answer TEXT NOT NULL CHECK (json_valid(answer)),     -- the first answer, as sent
  at TEXT NOT NULL CHECK (at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  PRIMARY KEY (actor, key));
