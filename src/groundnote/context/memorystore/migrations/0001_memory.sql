-- The content memory (C-09): source texts with their locale variants, from the committed
-- `*.memory.json` seeds. Entries are keyed by the content key of the normalised source text.
CREATE TABLE memory_entries (
  source_key TEXT PRIMARY KEY,
  source_text TEXT NOT NULL,
  seed TEXT NOT NULL
);

CREATE TABLE memory_variants (
  source_key TEXT NOT NULL REFERENCES memory_entries(source_key) ON DELETE CASCADE,
  locale TEXT NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (source_key, locale)
);
