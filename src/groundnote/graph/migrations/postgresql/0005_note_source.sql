-- graph/0005 on PostgreSQL: the `note` source kind (DESIGN §15 P7). PostgreSQL widens a CHECK
-- in place, so no rebuild: the three checks that list the source kinds are replaced, under
-- PostgreSQL's default names for a column check (<table>_<column>_check) and the table check
-- that ties the kind to the id (source_check). Regular expressions stand for SQLite's GLOB.
-- SQLite's 0005 also recreates link_endpoints to look its ends up by key; the PL/pgSQL form
-- of that trigger (graph/0002 here) is to do the same lookups.
ALTER TABLE source DROP CONSTRAINT IF EXISTS source_id_check;
ALTER TABLE source DROP CONSTRAINT IF EXISTS source_kind_check;
ALTER TABLE source DROP CONSTRAINT IF EXISTS source_check;
ALTER TABLE source ADD CONSTRAINT source_id_check
  CHECK (id ~ '^mail:<.+>$' OR id ~ '^jamie:.+$' OR id ~ '^note:.+$');
ALTER TABLE source ADD CONSTRAINT source_kind_check CHECK (kind IN ('mail','meeting','note'));
ALTER TABLE source ADD CONSTRAINT source_check CHECK ((kind = 'mail') = (id LIKE 'mail:%'));
ALTER TABLE source ADD CONSTRAINT source_note_check CHECK ((kind = 'note') = (id LIKE 'note:%'));
