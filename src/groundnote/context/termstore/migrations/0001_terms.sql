-- The terms store (C-08): concepts and their terms per canonical locale. Open window bounds
-- and "every market" are stored as '' so that they can be part of the key.
CREATE TABLE term_concepts (
  concept TEXT PRIMARY KEY
);

CREATE TABLE terms (
  concept TEXT NOT NULL REFERENCES term_concepts(concept) ON DELETE CASCADE,
  locale TEXT NOT NULL,
  text TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('preferred', 'admitted', 'deprecated', 'forbidden')),
  valid_from TEXT NOT NULL DEFAULT '',
  valid_to TEXT NOT NULL DEFAULT '',
  market TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (concept, locale, text, market, valid_from)
);
CREATE INDEX terms_locale ON terms(locale, text);
