-- graph/0003 (PostgreSQL twin of ../0003_link_from.sql): links by their source end, for
-- bundles and link_list, which read every link of a rule or entity, closed ones included.
CREATE INDEX link_from ON link(from_ref, type);
