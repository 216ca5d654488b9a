"""`groundnote check` for core: days and instants that match the pattern but not the calendar.

Before inputs were checked against the calendar (issue 15), `2026-02-31` or `9999-99-99`
passed the pattern and were stored; the table CHECKs test the pattern only. This finds them.
"""

from __future__ import annotations

from groundnote.domain.ids import real_day, real_instant
from groundnote.store.database import Database

__all__ = ["impossible_dates"]

# (table, id column, date column, checker); the columns may be NULL where the schema allows.
_COLUMNS = (
    ("source", "id", "day", real_day),
    ("source", "id", "sent_at", real_instant),
    ("rule", "id", "valid_from", real_day),
    ("rule", "id", "valid_to", real_day),
)


def impossible_dates(db: Database) -> list[str]:
    problems = []
    with db.read() as conn:
        for table, key, column, real in _COLUMNS:
            rows = conn.execute(f"SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL")
            for ident, value in rows:
                try:
                    real(value)
                except ValueError:
                    problems.append(
                        f"{table} {ident}: {column} {value!r} is not on the calendar; "
                        "export the scope, correct the date and import it again"
                    )
    return problems
