-- graph/0004 (PostgreSQL twin of ../0004_log_operations.sql): the operation log without its
-- list of operation names; the list is held by a test against the declared operations
-- (tests/capabilities/test_declarations.py). PostgreSQL replaces the CHECK in place.
ALTER TABLE search_log DROP CONSTRAINT search_log_operation_check;
ALTER TABLE search_log ADD CONSTRAINT search_log_operation_check CHECK (length(operation) BETWEEN 1 AND 100);
