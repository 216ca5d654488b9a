"""Concepts and their terms, projected from the committed terms source."""

from __future__ import annotations

from groundnote.context.presence import has_table
from groundnote.context.sources import Concept, Term, TermsSource
from groundnote.store import Database, Subsystem, load_migrations

__all__ = ["SUBSYSTEM", "TermStore"]

SUBSYSTEM = Subsystem("terms", load_migrations("groundnote.context.termstore", "terms"))


class TermStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def replace(self, source: TermsSource) -> None:
        """Make the store hold exactly the source: the vocabulary is small, so it is rewritten."""
        with self.db.write() as conn:
            conn.execute("DELETE FROM term_concepts")
            conn.executemany(
                "INSERT INTO term_concepts (concept) VALUES (?)", [(c.id,) for c in source.concepts]
            )
            conn.executemany(
                "INSERT OR REPLACE INTO terms "
                "(concept, locale, text, status, valid_from, valid_to, market) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        c.id,
                        t.locale,
                        t.text,
                        t.status,
                        t.valid_from or "",
                        t.valid_to or "",
                        t.market or "",
                    )
                    for c in source.concepts
                    for t in c.terms
                ],
            )

    def source(self) -> TermsSource:
        """What the store holds, in the shape of the source (concepts and terms sorted)."""
        with self.db.read() as conn:
            if not has_table(conn, "terms"):
                return TermsSource()
            concepts = [r[0] for r in conn.execute("SELECT concept FROM term_concepts ORDER BY 1")]
            rows = conn.execute(
                "SELECT * FROM terms ORDER BY concept, locale, text, market, valid_from"
            ).fetchall()
        terms: dict[str, list[Term]] = {c: [] for c in concepts}
        for row in rows:
            terms[row["concept"]].append(
                Term.model_validate(
                    {
                        "text": row["text"],
                        "locale": row["locale"],
                        "status": row["status"],
                        "from": row["valid_from"] or None,
                        "to": row["valid_to"] or None,
                        "market": row["market"] or None,
                    }
                )
            )
        return TermsSource(concepts=[Concept(id=c, terms=t) for c, t in terms.items() if t])

    def concepts_named(self, name: str) -> list[str]:
        """The concepts with a term whose id or a term's text is `name`, caseless.

        Read as plain rows, not as the source's models: a search asks this of every
        vocabulary, and validating 8,000 terms took 170 ms of each call.
        """
        wanted = name.casefold()
        with self.db.read() as conn:
            if not has_table(conn, "terms"):
                return []
            rows = conn.execute("SELECT concept, text FROM terms").fetchall()
        return sorted(
            {concept for concept, text in rows if wanted in (text.casefold(), concept.casefold())}
        )

    def locales(self) -> list[str]:
        with self.db.read() as conn:
            if not has_table(conn, "terms"):
                return []
            return [r[0] for r in conn.execute("SELECT DISTINCT locale FROM terms ORDER BY 1")]
