-- graph/0005: the operation log read newest first (the explorer's activity page and a scope's
-- latest changes), and by who or what. Without these a page of 50 rows sorts the whole log.
CREATE INDEX search_log_at ON search_log(at, id);
CREATE INDEX search_log_actor ON search_log(grant_id, at, id);
CREATE INDEX search_log_operation ON search_log(operation, at, id);
