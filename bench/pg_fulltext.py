"""Full text on PostgreSQL: a tsvector column with a GIN index against pg_trgm, same rows.

Issue 20 asks to measure both before choosing. Both tables hold N rule texts of 10–60 words
(a Zipf-like vocabulary of 20,000 words plus five common business words); the tsvector table
is written exactly as the store's dialect writes `rule_fts` (core's own words, no text-search
configuration), and searched with the dialect's ranked query (the newest 1,000 matches
ranked, 40 kept). The pg_trgm table holds the same text under `gin_trgm_ops`, searched with
LIKE per word and ranked by similarity over the same window. The query mix: each common word,
15 rare words, 20 pairs of a common and a frequent word; three rounds.

    .venv/bin/python -m bench.pg_fulltext [--n 100000] [--url postgresql://postgres@127.0.0.1:5432/postgres]

It creates the database `pgsql_bench_fulltext` on that server and drops it afterwards.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import psycopg

from bench.common import Timing, print_table
from groundnote.core.fts import RULE_COLUMNS, normalize, tokens
from groundnote.store.dialect import POSTGRESQL, Term, TextQuery, tsvector_text

COMMON = ["rabatt", "kunde", "lieferung", "nord", "preis"]
DB = "pgsql_bench_fulltext"


def _texts(n: int, rnd: random.Random) -> list[str]:
    vocab = [
        f"w{i}" + "".join(rnd.choice("abcdefghijklmnop") for _ in range(rnd.randint(2, 8)))
        for i in range(20_000)
    ]
    weights = [1 / (i + 1) ** 0.9 for i in range(len(vocab))]
    out = []
    for _ in range(n):
        words = rnd.choices(vocab, weights, k=rnd.randint(10, 60))
        words += rnd.sample(COMMON, rnd.randint(0, 2))
        rnd.shuffle(words)
        out.append(normalize(" ".join(words)))
    return out


def _queries(texts: list[str], rnd: random.Random) -> list[list[str]]:
    frequent = sorted({w for t in texts[:2000] for w in t.split()} - set(COMMON))
    return (
        [[w] for w in COMMON]
        + [[rnd.choice(frequent)] for _ in range(15)]
        + [[rnd.choice(COMMON), rnd.choice(frequent)] for _ in range(20)]
    )


def _named(sql: str) -> str:
    """The dialect's `:name` parameters as psycopg's (the store translates them the same way)."""
    for name in ("expr", "window", "pool"):
        sql = sql.replace(f":{name}", f"%({name})s")
    return sql


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    texts = _texts(args.n, rnd)
    queries = _queries(texts, rnd)
    with psycopg.connect(args.url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {DB}")
        admin.execute(f"CREATE DATABASE {DB} TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'")
    url = args.url.rsplit("/", 1)[0] + "/" + DB
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            _run(conn, texts, queries)
    finally:
        with psycopg.connect(args.url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


def _run(conn: psycopg.Connection, texts: list[str], queries: list[list[str]]) -> None:
    conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    conn.execute("CREATE TABLE rule_fts (rowid BIGINT PRIMARY KEY, doc tsvector NOT NULL)")
    conn.execute("CREATE TABLE rule_trgm (rowid BIGINT PRIMARY KEY, text TEXT NOT NULL)")
    build: list[tuple[str, float, str]] = []
    with conn.cursor() as cur:
        with cur.copy("COPY rule_fts (rowid, doc) FROM STDIN") as copy:
            for seq, text in enumerate(texts, 1):
                copy.write_row((seq, tsvector_text([text, ""], tokens)))
        with cur.copy("COPY rule_trgm (rowid, text) FROM STDIN") as copy:
            for seq, text in enumerate(texts, 1):
                copy.write_row((seq, text))
    for name, table, sql in (
        ("tsvector + GIN", "rule_fts", "CREATE INDEX ON rule_fts USING gin (doc)"),
        ("pg_trgm", "rule_trgm", "CREATE INDEX ON rule_trgm USING gin (text gin_trgm_ops)"),
    ):
        start = time.perf_counter()
        conn.execute(sql)  # type: ignore[arg-type]
        size = conn.execute("SELECT pg_size_pretty(pg_total_relation_size(%s))", (table,))
        build.append((name, time.perf_counter() - start, str(size.fetchone()[0])))  # type: ignore[index]
    conn.execute("ANALYZE")
    ranked = _named(POSTGRESQL.text_ranked("rule_fts", ""))
    trigram = (
        "SELECT rowid, -similarity(text, %(q)s) AS score, count(*) OVER () FROM (SELECT rowid, "
        "text FROM rule_trgm WHERE {where} ORDER BY rowid DESC LIMIT 1000) AS w "
        "ORDER BY score, rowid DESC LIMIT 40"
    )

    def by_tsvector(words: list[str]) -> object:
        query = POSTGRESQL.text_query(TextQuery(tuple(Term((w,)) for w in words)))
        return conn.execute(ranked, {"expr": query, "window": 1000, "pool": 40}).fetchall()  # type: ignore[arg-type]

    def by_trigram(words: list[str]) -> object:
        where = " AND ".join(f"text LIKE %(w{i})s" for i in range(len(words)))
        params = {"q": " ".join(words), **{f"w{i}": f"%{w}%" for i, w in enumerate(words)}}
        return conn.execute(trigram.format(where=where), params).fetchall()  # type: ignore[arg-type]

    timings = {
        name: _time(fn, queries)
        for name, fn in (("tsvector + GIN", by_tsvector), ("pg_trgm", by_trigram))
    }
    base = timings["tsvector + GIN"].p95
    print_table(
        f"full text on PostgreSQL, {len(texts):,} rows, {3 * len(queries)} queries "
        f"(columns as rule_fts: {', '.join(RULE_COLUMNS)})",
        ["engine", "index s", "table+index", "p50 ms", "p95 ms", "p95 ratio"],
        [
            (name, seconds, size, timings[name].p50, timings[name].p95, timings[name].p95 / base)
            for name, seconds, size in build
        ],
    )


def _time(fn: Callable[[list[str]], object], queries: list[list[str]]) -> Timing:
    for words in queries[:5]:
        fn(words)
    samples = []
    for _ in range(3):
        for words in queries:
            start = time.perf_counter()
            fn(words)
            samples.append((time.perf_counter() - start) * 1000)
    return Timing(samples)


if __name__ == "__main__":
    main()
