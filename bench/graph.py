"""Benchmark of the graph (DESIGN §13): resolve, create, move, tree and path at scale.

    .venv/bin/python bench/graph.py            # 100,000 entities
    .venv/bin/python bench/graph.py --n 10000  # a smaller run

Generation: German organisations with legal forms and umlauts, departments, projects,
customers and people with aliases, down to level 8, plus one group of 10,000 entities for the
move. It uses the writer's own `create_entity` in transactions of 5,000 with the similar-name
check off (it would resolve every generated name; the literal check and every database check
run). "create per second with every check" is then measured separately through the registry,
one transaction per call, with all checks on.

Query kinds: exact, unique-alias, umlaut (transliterated), one-typo and two-typo (random
swap/delete/insert/replace inside the name), tokens (reversed order) and initials. The
generated names all carry a number, so their token initials contain a digit ("vn1" for
"Vertrieb Nord 17") and the seed's initials pass (a key of 2–6 letters) can never ask for
them; the initials queries therefore use a set of letter-only organisations whose initials are
unique in the scope, and hit@5 is printed beside hit@1 for every kind. Misses of the one-typo
kind are split into "ambiguous" (the typo made the query at least as close to the entity
ranked first as to the generated one, so no scoring could pick the target) and "scoring".

Memory: the whole process holds the generator's plan and the bulk load's caches, so the graph
alone is measured in a fresh child process (`--footprint`) that opens the store, builds the
recall index and runs every resolve query and 200 creates; its size before the index and its
peak are printed, with the index's own size (tracemalloc) from the parent.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from rapidfuzz.distance import OSA

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from groundnote.auth import Right, create_grant  # noqa: E402
from groundnote.domain.clock import FixedClock  # noqa: E402
from groundnote.graph import fts  # noqa: E402
from groundnote.graph.closure import closure_rows  # noqa: E402
from groundnote.graph.entities import Author, create_entity  # noqa: E402
from groundnote.graph.normalize import initials, normalize  # noqa: E402
from groundnote.graph.resolve import Match, initials_pass, recall, resolve_key  # noqa: E402
from groundnote.graph.trigram import index_for  # noqa: E402
from groundnote.runtime import Runtime, open_runtime  # noqa: E402

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


def lettered(rng: random.Random, count: int) -> list[str]:
    """Letter-only organisation names of three or four words whose initials differ pairwise."""
    words = sorted({*FIRST, *LAST, *STEM, *PROJ, *DEPTS, *REGION})
    names: dict[str, str] = {}
    while len(names) < count:
        picked = rng.sample(words, rng.choice((3, 4)))
        key = initials(normalize(" ".join(picked)))
        names.setdefault(key, " ".join(picked) + " " + rng.choice(LEGAL))
    return list(names.values())


# What `generate` makes and `load` writes.
Plan = list[tuple[str, str, list[str], int | None]]


def generate(n: int, rng: random.Random) -> Plan:
    """(type, name, aliases, parent index) in creation order, parents first."""
    out: Plan = []
    group_size = min(10_000, n // 5)
    out.append(("organisation", "Konzern Holding AG", ["KH"], None))
    out.extend(("organisation", name, [], None) for name in lettered(rng, min(300, n // 100)))
    depth: dict[int, int] = {i: 1 for i in range(len(out))}
    group_size += len(out) - 1  # the group under the first entity keeps its size
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


def load(rt: Runtime, scope: str, plan: Plan) -> list[str]:
    """Write the plan into the scope with the writer's own `create_entity`, in transactions of
    5,000, the similar-name check off (it would resolve every generated name; the literal check
    and every database check run); the ids in plan order."""
    db = rt.home.scope_db(scope)
    author = Author.of("mcp", "grant:bench", rt.home.clock.instant(), "2026-11-30")
    index = index_for(db)
    ids: list[str] = []
    for chunk in range(0, len(plan), 5000):
        with db.write() as conn:
            for type_, name, aliases, parent in plan[chunk : chunk + 5000]:
                written = create_entity(
                    conn,
                    index,
                    rt.config.graph,
                    scope,
                    author,
                    type=type_,
                    name=name,
                    aliases=aliases,
                    parent_id=None if parent is None else ids[parent],
                    reason="generated",
                    similar_check=False,
                )
                ids.append(written.id)
    return ids


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


KINDS = ("exact", "unique-alias", "umlaut", "one-typo", "two-typo", "tokens", "initials")


def queries_of(plan: Plan, rng: random.Random, per_kind: int) -> dict[str, list[tuple[str, int]]]:
    """(query, index of the generated entity) per kind."""
    kinds: dict[str, list[tuple[str, int]]] = {k: [] for k in KINDS}
    alias_count: dict[str, int] = {}
    for _, _, aliases, _ in plan:
        for a in aliases:
            alias_count[normalize(a)] = alias_count.get(normalize(a), 0) + 1
    for i in rng.sample(range(len(plan)), min(len(plan), per_kind * 20)):
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
        for kind, q in add:
            if len(kinds[kind]) < per_kind and normalize(q):
                kinds[kind].append((q, i))
    # Initials the seed's pass can ask for: the letter-only organisations (unique initials).
    lettered = [i for i, (_, name, _, _) in enumerate(plan) if not any(c.isdigit() for c in name)]
    for i in rng.sample(lettered, min(len(lettered), per_kind)):
        key = initials(normalize(plan[i][1]))
        if 2 <= len(key) <= 6:
            kinds["initials"].append((key, i))
    return kinds


def footprint(home: Path, queries_file: Path) -> None:
    """The child of --footprint: the graph alone, in a fresh process (prints one JSON line)."""
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    rt = open_runtime(home, clock=clock, environ={})
    db = rt.home.scope_db("bench")
    opened = high_water()
    index = index_for(db)
    len(index)
    built = high_water()
    with db.read() as conn:
        for q in json.loads(queries_file.read_text()):
            resolve_key(index, normalize(q))
        parents = [r[0] for r in conn.execute("SELECT id FROM entity ORDER BY seq LIMIT 200")]
    call = caller(rt, "footprint")
    for i, parent in enumerate(parents):
        call(
            "graph.entity_create",
            type="project",
            name=f"Messung {i} Kranich",
            parent_id=parent,
            force=True,
            reason="footprint",
        )
    peak = high_water()
    print(json.dumps({"opened": opened, "built": built, "peak": peak}))
    rt.close()


def high_water() -> float:
    """Peak RSS in MB of this process image; ru_maxrss would carry the parent's over exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def caller(rt: Runtime, grant: str) -> Callable[..., dict[str, object]]:
    _, token = create_grant(
        rt.home.instance,
        grant,
        rights={"bench": Right.PROPOSE},
        channels=["mcp"],
        org="local",
        now=rt.home.clock.instant(),
    )
    who = rt.authenticate(token)

    def call(capability: str, /, **raw: object) -> dict[str, object]:
        out = rt.invoke(
            rt.registry.get(capability), {"scope": "bench", **raw}, principal=who, channel="mcp"
        )
        return out.model_dump(mode="json")

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="entities to generate")
    parser.add_argument("--queries", type=int, default=200, help="queries per match kind")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--footprint", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.footprint:
        footprint(*args.footprint)
        return
    rng = random.Random(args.seed)
    home = Path(tempfile.mkdtemp(prefix="gn-bench-graph-"))
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    rt = open_runtime(home, clock=clock, environ={})
    rt.home.create_scope("bench")
    db = rt.home.scope_db("bench")
    call = caller(rt, "bench")

    plan = generate(args.n, rng)
    start = time.perf_counter()
    ids = load(rt, "bench", plan)
    took = time.perf_counter() - start
    print(f"generated {len(ids):,} entities in {took:.1f} s (bulk, literal + database checks)")
    index = index_for(db)
    tracemalloc.start()
    start = time.perf_counter()
    size = len(index)
    took = time.perf_counter() - start
    held = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    print(
        f"in-memory index built from entity_fts: {size:,} entities in {took:.2f} s "
        f"(under tracemalloc), {held:.1f} MB"
    )

    # -- resolve ----------------------------------------------------------------------------
    kinds = queries_of(plan, rng, args.queries)

    def rank(found: list[Match], target: int) -> int | None:
        for place, m in enumerate(found):
            if m.id == ids[target] or normalize(m.name) == normalize(plan[target][1]):
                return place
        return None

    print(
        "\nresolve (direct, 5 candidates, paths included); hit = the generated entity "
        "(or one with the same normalised name)"
    )
    print(
        f"{'kind':<13}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'hit@1':>8}{'hit@5':>8}   "
        f"{'seed FTS5 p50':>14}{'p95':>9}{'hit@1':>8}{'hit@5':>8}"
    )
    misses: list[tuple[str, str, int, str, int, bool]] = []
    with db.read() as conn:
        for kind, queries in kinds.items():
            ours: list[float] = []
            seed: list[float] = []
            hits = [0, 0, 0, 0]
            for q, target in queries:
                key = normalize(q)
                t0 = time.perf_counter()
                found = resolve_key(index, key)
                ours.append(time.perf_counter() - t0)
                place = rank(found, target)
                hits[0] += place == 0
                hits[1] += place is not None
                if kind == "one-typo" and place != 0:
                    want = normalize(plan[target][1])
                    top = normalize(found[0].name) if found else ""
                    seq = int(ids[target].rsplit("-e", 1)[1])
                    misses.append(
                        (
                            key,
                            want,
                            OSA.distance(key, want),
                            top,
                            OSA.distance(key, top),
                            seq in recall(index, key),
                        )
                    )
                t0 = time.perf_counter()
                recalled = index.exact(key) | set(fts.literal_recall(conn, key))
                recalled.update(initials_pass(index, key))
                found = resolve_key(index, key, recalled=recalled)
                seed.append(time.perf_counter() - t0)
                place = rank(found, target)
                hits[2] += place == 0
                hits[3] += place is not None
            if not queries:
                continue
            n = len(queries)
            print(
                f"{kind:<13}{n:>5}{pct(ours, 0.5):>9.2f}{pct(ours, 0.95):>9.2f}"
                f"{hits[0] / n:>8.3f}{hits[1] / n:>8.3f}   {pct(seed, 0.5):>14.2f}"
                f"{pct(seed, 0.95):>9.2f}{hits[2] / n:>8.3f}{hits[3] / n:>8.3f}"
            )
    ambiguous = [m for m in misses if m[4] <= m[2]]
    unrecalled = [m for m in misses if m[4] > m[2] and not m[5]]
    print(
        f"one-typo misses: {len(misses)}: {len(ambiguous)} ambiguous (the query is at least as "
        f"close to the entity ranked first as to the generated one), {len(unrecalled)} not "
        f"recalled (outside the 50 by shared trigrams), "
        f"{len(misses) - len(ambiguous) - len(unrecalled)} scoring"
    )
    for key, want, d_want, top, d_top, _ in misses[:6]:
        print(f"  {key!r}: generated {want!r} (OSA {d_want}), first {top!r} (OSA {d_top})")

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
    new_parent = ids[-1] if plan[-1][3] is None else ids[len(ids) // 2]
    took = timed(lambda: call("graph.entity_move", id=ids[0], parent_id=new_parent))
    with db.read() as conn:
        incremental = {tuple(r) for r in conn.execute("SELECT * FROM entity_closure")}
        equal = incremental == closure_rows(conn)
    print(
        f"entity_move of a {group:,}-node subtree: {took:.2f} s; closure equals a rebuild: {equal}"
    )

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process (generator and bulk load included) {peak:.0f} MB")
    rt.close()

    # -- the graph alone, in a fresh process ------------------------------------------------
    queries_file = home / "queries.json"
    queries_file.write_text(json.dumps([q for qs in kinds.values() for q, _ in qs]))
    child = subprocess.run(
        [sys.executable, __file__, "--footprint", str(home), str(queries_file)],
        check=True,
        capture_output=True,
        text=True,
    )
    mem = json.loads(child.stdout.strip().splitlines()[-1])
    print(
        f"graph alone (fresh process, {size:,} entities): {mem['opened']:.0f} MB with the "
        f"store open, {mem['built']:.0f} MB with the recall index, peak {mem['peak']:.0f} MB "
        "after every resolve query and 200 creates"
    )
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
