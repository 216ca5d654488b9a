-- core/0003 on PostgreSQL: the full-text GIN indexes keep a pending list of 64 kB (the least
-- PostgreSQL allows) instead of 4 MB.
--
-- A GIN index first appends new rows to a pending list, which every search reads whole and
-- which is merged into the index only when it outgrows the limit or the table is vacuumed.
-- Texts written one at a time, as agents write rules, leave up to 4 MB of it between two
-- autovacuums: at 100,000 sources the bitmap of a three-word query took 7.1 ms with 447
-- pending pages, 2.6 ms without. At 64 kB the write that fills the list merges a small one.
ALTER INDEX rule_fts_doc SET (gin_pending_list_limit = 64);
ALTER INDEX source_fts_doc SET (gin_pending_list_limit = 64);
