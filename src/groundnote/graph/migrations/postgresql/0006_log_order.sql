-- graph/0006: indexes for the explorer pages, on tables graph reads beside core (as 0004
-- rebuilt the log): the operation log read newest first (the activity page, a scope's latest
-- changes) and by who or what, which without them sorts the whole log for a page of 50 rows;
-- and the sources counted by kind for a scope's overview, which otherwise reads every body.
CREATE INDEX search_log_at ON search_log(at, id);
CREATE INDEX search_log_actor ON search_log(grant_id, at, id);
CREATE INDEX search_log_operation ON search_log(operation, at, id);
CREATE INDEX source_kind ON source(kind);
