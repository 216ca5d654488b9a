-- The expiry sweep's turn (issue 16): every `serve` process, on every app server, wakes each
-- impulses.prune_interval_seconds, and only the one whose conditional UPDATE of this row finds
-- the last sweep an interval old sweeps; the others find it taken and sleep again. So the
-- sweep (and its impulse:expired events) runs once per interval across processes and servers.
-- Instance state, not an organisation's: the impulse export leaves it out.
CREATE TABLE impulse_sweep (
  name TEXT PRIMARY KEY CHECK (name = 'expiry'),
  last_at TEXT NOT NULL CHECK (last_at ~ '^.{4}-.{2}-.{2}T.{2}:.{2}:.{2}.*Z$'),
  runs INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0));
INSERT INTO impulse_sweep (name, last_at, runs) VALUES ('expiry', '1970-01-01T00:00:00.000Z', 0);
