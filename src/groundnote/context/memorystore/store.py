"""Content memory projected from the seeds: a source text and its variants per locale."""

from __future__ import annotations

from groundnote.context.blocks import content_key
from groundnote.context.locales import canonical
from groundnote.context.presence import has_table
from groundnote.context.seeds import MemoryEntry
from groundnote.store import Database, Subsystem, load_migrations

__all__ = ["SUBSYSTEM", "MemoryStore"]

SUBSYSTEM = Subsystem("memory", load_migrations("groundnote.context.memorystore", "memory"))


class MemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def replace(self, entries: list[MemoryEntry]) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM memory_entries")
            conn.executemany(
                "INSERT INTO memory_entries (source_key, source_text, seed) VALUES (?, ?, ?)",
                [(e.source_key, e.source_text, e.seed) for e in entries],
            )
            conn.executemany(
                "INSERT INTO memory_variants (source_key, locale, text) VALUES (?, ?, ?)",
                [(e.source_key, loc, text) for e in entries for loc, text in e.variants],
            )

    def entries(self) -> list[MemoryEntry]:
        with self.db.read() as conn:
            if not has_table(conn, "memory_entries"):
                return []
            variants: dict[str, list[tuple[str, str]]] = {}
            for row in conn.execute("SELECT * FROM memory_variants ORDER BY source_key, locale"):
                variants.setdefault(row["source_key"], []).append((row["locale"], row["text"]))
            rows = conn.execute("SELECT * FROM memory_entries ORDER BY source_key").fetchall()
        return [
            MemoryEntry(
                r["source_key"],
                r["source_text"],
                r["seed"],
                tuple(variants.get(r["source_key"], [])),
            )
            for r in rows
        ]

    def recall(self, source_text: str, locale: str) -> str | None:
        """The remembered variant of a source text in a locale, if the memory holds one."""
        with self.db.read() as conn:
            if not has_table(conn, "memory_variants"):
                return None
            row = conn.execute(
                "SELECT text FROM memory_variants WHERE source_key = ? AND locale = ?",
                (content_key(source_text), canonical(locale)),
            ).fetchone()
        return None if row is None else str(row[0])

    def locales(self) -> list[str]:
        with self.db.read() as conn:
            if not has_table(conn, "memory_variants"):
                return []
            return [r[0] for r in conn.execute("SELECT DISTINCT locale FROM memory_variants")]
