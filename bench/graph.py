"""Benchmark of the graph (DESIGN §13): resolve, create, move, tree and path at scale.

    .venv/bin/python bench/graph.py            # 100,000 entities
    .venv/bin/python bench/graph.py --n 10000  # a smaller run

Generation: German organisations with legal forms and umlauts, departments, projects,
customers and people with aliases, down to level 8, plus one group of 10,000 entities for the
move. It uses the writer's own `create_entity` in transactions of 5,000 with the similar-name
check off (it would resolve every generated name; the literal check and every database check
run). "create per second with every check" is then measured separately through the registry,
one transaction per call, with all checks on.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.domain.clock import FixedClock  # noqa: E402
from groundnote.graph import fts  # noqa: E402
from groundnote.graph.closure import closure_rows  # noqa: E402
from groundnote.graph.entities import Author, create_entity  # noqa: E402
from groundnote.graph.normalize import initials, normalize  # noqa: E402
from groundnote.graph.resolve import resolve_key  # noqa: E402
from groundnote.graph.trigram import index_for  # noqa: E402
from groundnote.runtime import open_runtime  # noqa: E402

FIRST = [
    "Anna",
    "Jürgen",
    "Sören",
    "Lukas",
    "Jörg",
    "Björn",
    "Käthe",
    "Marie",
    "Ömer",
    "Felix",
    "Günther",
    "Sophie",
    "Maximilian",
    "Lena",
    "Tobias",
    "Jana",
    "Uwe",
    "Bärbel",
    "Nils",
]
LAST = [
    "Müller",
    "Schröder",
    "Bäcker",
    "Weiß",
    "Krüger",
    "Hoffmann",
    "Schäfer",
    "Köhler",
    "Wagner",
    "Böhm",
    "Lehmann",
    "Schulz",
    "Fuß",
    "Großmann",
    "Jäger",
    "Vogt",
    "Brückner",
]
STEM = [
    "Nord",
    "Süd",
    "Alpen",
    "Rhein",
    "Elb",
    "Wald",
    "Stahl",
    "Glas",
    "Öko",
    "Bau",
    "Licht",
    "Strom",
    "Wärme",
    "Grün",
    "Fluss",
    "Berg",
    "Mühlen",
    "Brücken",
    "Hafen",
    "Küsten",
]
TAIL = [
    "werk",
    "technik",
    "logistik",
    "handel",
    "bau",
    "energie",
    "systeme",
    "service",
    "consult",
    "medien",
    "druck",
    "maschinen",
    "tec",
    "gruppe",
    "partner",
]
LEGAL = ["GmbH", "AG", "KG", "GmbH & Co. KG", "e.V.", "UG", "OHG", "SE"]
DEPTS = [
    "Vertrieb",
    "Einkauf",
    "Personal",
    "Buchhaltung",
    "Entwicklung",
    "Qualität",
    "Lager",
    "Marketing",
    "Kundendienst",
    "Rechtsabteilung",
    "Fertigung",
    "Prüfstand",
    "Logistik",
]
REGION = ["Nord", "Süd", "Ost", "West", "Mitte", "Bayern", "Sachsen", "Hessen", "Übersee"]
PROJ = [
    "Polarstern",
    "Eisbrecher",
    "Sonnenhof",
    "Mühlrad",
    "Störfall",
    "Lötstelle",
    "Fährmann",
    "Gründach",
    "Wendeltreppe",
    "Nordlicht",
    "Bärenhöhle",
    "Kranich",
    "Schwalbe",
]
LETTERS = "abcdefghijklmnopqrstuvwxyzäöü"


def org_name(rng: random.Random, n: int) -> str:
    return f"{rng.choice(STEM)}{rng.choice(TAIL)} {rng.choice(LAST)} {n} {rng.choice(LEGAL)}"


def generate(n: int, rng: random.Random) -> list[tuple[str, str, list[str], int | None]]:
    """(type, name, aliases, parent index) in creation order, parents first."""
    out: list[tuple[str, str, list[str], int | None]] = []
    group_size = min(10_000, n // 5)
    out.append(("organisation", "Konzern Holding AG", ["KH"], None))
    depth: dict[int, int] = {0: 1}
    frontier = [0]
    while len(out) < group_size:
        parent = frontier[rng.randrange(len(frontier))]
        i = len(out)
        out.append(("department", f"{rng.choice(DEPTS)} {rng.choice(REGION)} {i}", [], parent))
        depth[i] = depth[parent] + 1
        if depth[i] < 8:  # the tree goes down to level 8
            frontier.append(i)
    while len(out) < n:
        org = len(out)
        out.append(("organisation", org_name(rng, org), [f"{rng.choice(STEM)[:3]}{org}"], None))
        depth[org] = 1
        level = [org]
        for lvl in range(2, rng.randint(3, 8) + 1):
            nxt = []
            for parent in level:
                for _ in range(rng.randint(1, 3)):
                    if len(out) >= n:
                        break
                    kind = rng.choice(["department", "project", "customer", "person"])
                    i = len(out)
                    if kind == "department":
                        name = f"{rng.choice(DEPTS)} {rng.choice(REGION)} {i}"
                        aliases = [f"{name[0]}{name.split()[1][0]}{i}"]
                    elif kind == "project":
                        name = f"Projekt {rng.choice(PROJ)} {i}"
                        aliases = [f"P-{i}"]
                    elif kind == "customer":
                        name = org_name(rng, i)
                        aliases = []
                    else:
                        name = f"{rng.choice(FIRST)} {rng.choice(LAST)} {i}"
                        aliases = []
                    out.append((kind, name, aliases, parent))
                    depth[i] = lvl
                    nxt.append(i)
            level = nxt[:4]
            if len(out) >= n:
                break
    return out


def typo(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        i = rng.randrange(1, len(chars) - 1)
        op = rng.choice(["swap", "delete", "insert", "replace"])
        if op == "swap":
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == "delete":
            del chars[i]
        elif op == "insert":
            chars.insert(i, rng.choice(LETTERS))
        else:
            chars[i] = rng.choice(LETTERS)
    return "".join(chars)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="entities to generate")
    parser.add_argument("--queries", type=int, default=200, help="queries per match kind")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    home = Path(tempfile.mkdtemp(prefix="gn-bench-graph-"))
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    rt = open_runtime(home, clock=clock, environ={})
    rt.home.create_scope("bench")
    _, token = create_grant(
        rt.home.instance,
        "bench",
        rights={"bench": Right.PROPOSE},
        channels=["mcp"],
        org="local",
        now=clock.instant(),
    )
    who = rt.authenticate(token)
    db = rt.home.scope_db("bench")
    rt.config.graph.max_depth = 16

    def call(capability: str, /, **raw: object) -> dict[str, object]:
        out = rt.invoke(
            rt.registry.get(capability), {"scope": "bench", **raw}, principal=who, channel="mcp"
        )
        return out.model_dump(mode="json")

    plan = generate(args.n, rng)
    author = Author.of("mcp", "grant:bench", clock.instant(), "2026-11-30")
    index = index_for(db)
    ids: list[str] = []
    start = time.perf_counter()
    for chunk in range(0, len(plan), 5000):
        with db.write() as conn:
            for type_, name, aliases, parent in plan[chunk : chunk + 5000]:
                written = create_entity(
                    conn,
                    index,
                    rt.config.graph,
                    "bench",
                    author,
                    type=type_,
                    name=name,
                    aliases=aliases,
                    parent_id=None if parent is None else ids[parent],
                    reason="generated",
                    similar_check=False,
                )
                ids.append(written.id)
    load = time.perf_counter() - start
    print(f"generated {len(ids):,} entities in {load:.1f} s (bulk, literal + database checks)")
    start = time.perf_counter()
    size = len(index)
    print(
        f"in-memory index built from entity_fts: {size:,} entities in "
        f"{time.perf_counter() - start:.2f} s"
    )

    # -- resolve ----------------------------------------------------------------------------
    kinds: dict[str, list[tuple[str, int]]] = {
        k: []
        for k in ("exact", "unique-alias", "umlaut", "one-typo", "two-typo", "initials", "tokens")
    }
    picks = rng.sample(range(len(plan)), min(len(plan), args.queries * 20))
    alias_count: dict[str, int] = {}
    for _, _, aliases, _ in plan:
        for a in aliases:
            alias_count[normalize(a)] = alias_count.get(normalize(a), 0) + 1
    for i in picks:
        _, name, aliases, _ = plan[i]
        plain = name.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
        add = [("exact", name), ("one-typo", typo(rng, name, 1)), ("two-typo", typo(rng, name, 2))]
        if aliases and alias_count[normalize(aliases[0])] == 1:
            add.append(("unique-alias", aliases[0]))
        if plain != name:
            add.append(("umlaut", plain))
        words = normalize(name).split()
        if len(words) >= 2:
            add.append(("tokens", " ".join(reversed(words))))
            add.append(("initials", initials(normalize(name))))
        for kind, q in add:
            if len(kinds[kind]) < args.queries and normalize(q):
                kinds[kind].append((q, i))

    def hit(found: list[object], target: int) -> bool:
        if not found:
            return False
        top = found[0]
        return top.id == ids[target] or normalize(top.name) == normalize(plan[target][1])  # type: ignore[attr-defined]

    print(
        "\nresolve (direct, 5 candidates, paths included); hit@1 = the generated entity first "
        "(or one with the same normalised name)"
    )
    print(
        f"{'kind':<13}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'hit@1':>8}   "
        f"{'seed FTS5 p50':>14}{'p95':>9}{'hit@1':>8}"
    )
    with db.read() as conn:
        for kind, queries in kinds.items():
            ours, seed, ours_hits, seed_hits = [], [], 0, 0
            for q, target in queries:
                key = normalize(q)
                t0 = time.perf_counter()
                found = resolve_key(conn, index, key)
                ours.append(time.perf_counter() - t0)
                ours_hits += hit(found, target)
                t0 = time.perf_counter()
                recalled = index.exact(key) | set(fts.literal_recall(conn, key))
                found = resolve_key(conn, index, key, recalled=recalled)
                seed.append(time.perf_counter() - t0)
                seed_hits += hit(found, target)
            if not queries:
                continue
            print(
                f"{kind:<13}{len(queries):>5}{pct(ours, 0.5):>9.2f}{pct(ours, 0.95):>9.2f}"
                f"{ours_hits / len(queries):>8.3f}   {pct(seed, 0.5):>14.2f}"
                f"{pct(seed, 0.95):>9.2f}{seed_hits / len(queries):>8.3f}"
            )

    # -- create with every check, through the registry ------------------------------------
    parents = rng.sample(ids[: len(ids) // 2], 200)
    count = min(1000, args.n // 10)
    start = time.perf_counter()
    for i in range(count):
        call(
            "graph.entity_create",
            type="project",
            name=f"Vorhaben {rng.choice(PROJ)} Z{i}x",
            parent_id=parents[i % len(parents)],
            force=True,
            reason="benchmark series",
        )
    rate = count / (time.perf_counter() - start)
    print(f"\ncreate with every check (registry, one transaction each): {rate:,.0f} per second")

    # -- tree and path ----------------------------------------------------------------------
    sample = rng.sample(ids, 300)
    trees = [timed(lambda e=e: call("graph.entity_tree", id=e)) for e in sample]
    paths = [timed(lambda e=e: call("graph.entity_path", id=e)) for e in sample]
    print(f"entity_tree p50 {pct(trees, 0.5):.2f} ms, p95 {pct(trees, 0.95):.2f} ms (registry)")
    print(f"entity_path p50 {pct(paths, 0.5):.2f} ms, p95 {pct(paths, 0.95):.2f} ms (registry)")

    # -- move of the big group --------------------------------------------------------------
    with db.read() as conn:
        group = conn.execute(
            "SELECT count(*) FROM entity_closure WHERE ancestor_id = ?", (ids[0],)
        ).fetchone()[0]
    target = ids[-1] if plan[-1][3] is None else ids[len(ids) // 2]
    took = timed(lambda: call("graph.entity_move", id=ids[0], parent_id=target))
    with db.read() as conn:
        incremental = {tuple(r) for r in conn.execute("SELECT * FROM entity_closure")}
        equal = incremental == closure_rows(conn)
    print(
        f"entity_move of a {group:,}-node subtree: {took:.2f} s; closure equals a rebuild: {equal}"
    )

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")
    rt.close()


if __name__ == "__main__":
    main()
