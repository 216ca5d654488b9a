-- graph/0003: links by their source end. Bundles and link_list read every link of a rule or
-- entity, closed ones included; only the partial `link_open` index covered from_ref, so those
-- reads scanned the whole table (about 9 ms per read at 100,000 links).
CREATE INDEX link_from ON link(from_ref, type);
