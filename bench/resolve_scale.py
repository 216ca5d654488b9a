"""Resolve at scale (issue 21): hit@1 / hit@5 per query class, duplicate refusals, p95.

    .venv/bin/python bench/resolve_scale.py                      # this tree only
    .venv/bin/python bench/resolve_scale.py --before main        # main and this tree, one run
    .venv/bin/python bench/resolve_scale.py --n 10000 --big 100000 --before main

The workload: `--n` distinct entities (German and English organisations with shared trade
words and legal forms, double surnames and umlauts; departments; projects with years and
phases; persons with first names, second names and academic titles), created one by one
with every duplicate check on, as an agent files what it meets. Distinct means: no two of a
type are equal after normalisation with academic titles left out, so every refusal of one of
them is a false one. False refusals are split by what tells the two names apart: "one or two
letters" (Schmid ~ Schmidt, debatable), "number" (2027 ~ 2021), "suffix" (a word added),
"word" (another word). Then the true duplicates: existing entities written again under the
same parent with other umlaut spelling or case, another legal form, a title added or dropped,
or one typo in a word of four letters or more; and the same name with other umlaut spelling
under another parent. Every one of them should be refused.

Query classes (targets drawn from the workload): exact, alias (unique aliases), umlaut
(ä → ae …), one typo and two typos (a letter swapped, dropped, added or replaced, never a
digit), tokens (the words reversed), org initials (`MMT`), person initials (`M. Franke`,
`Franke, M.`, titles left out) and `MF` (first and last initial). A hit is the generated
entity; "ambiguous" counts queries more than five entities answer equally well (the same
initials, or the same first initial and surname), which no ranking can place in the five.

Timing: `--big` entities (the same generator, bulk loaded without the similar check) and the
p50 / p95 of resolve over every query, in the same process.

`--before REV` runs the same workload against `git archive REV src` in a child process first
and prints both side by side with ratios.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

FIRST = [
    "Anna", "Maximilian", "Laura", "Ben", "Jürgen", "Sören", "Käthe", "Marie", "Felix",
    "Günther", "Sophie", "Lena", "Tobias", "Jana", "Uwe", "Bärbel", "Nils", "Emma", "Jonas",
    "Paul", "Lukas", "Hannah", "Mia", "Leon", "Finn", "Clara", "Ida", "Oskar", "Theo", "Greta",
    "Henrik", "Ole", "Frieda", "Karl", "Rosa", "Vincent", "Zoë", "Yusuf", "Elif", "Derya",
    "Charlotte", "Quentin", "William", "Olivia", "George", "Amelia", "Harry", "Isla",
]  # fmt: skip
LAST = [
    "Müller", "Mueller", "Schmid", "Schmidt", "Schneider", "Fischer", "Meyer", "Maier",
    "Wagner", "Becker", "Bäcker", "Schulz", "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter",
    "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun", "Krüger",
    "Hofmann", "Hartmann", "Lange", "Werner", "Krause", "Lehmann", "Köhler", "Franke",
    "Frank", "Jäger", "Weiß", "Fuß", "Großmann", "Böhm", "Vogt", "Brückner", "Lüdenscheidt",
    "Öztürk", "Kaya", "Smith", "Jones", "Taylor", "Brown", "Walker", "Wright", "Lakeside",
]  # fmt: skip
TITLES = ["Dr.", "Prof.", "Dr.-Ing.", "Prof. Dr.", "Dipl.-Ing."]
TRADES = [
    "Medizintechnik", "Logistik", "Bau", "Metalltechnik", "Druckerei", "Elektro", "Möbelwerk",
    "Brauerei", "Gärtnerei", "Software", "Holzbau", "Spedition", "Maschinenbau", "Optik",
    "Energie", "Systeme", "Consulting", "Handel", "Immobilien", "Verlag",
]  # fmt: skip
TRADES_EN = ["Holdings", "Logistics", "Systems", "Partners", "Consulting", "Trading", "Labs"]
PLACES = [
    "Nord", "Süd", "Ost", "West", "Köln", "München", "Lübeck", "Würzburg", "Düsseldorf",
    "Fürth", "Nordwest", "Bremen", "Göttingen", "Kassel", "Jena",
]  # fmt: skip
FORMS = ["GmbH", "AG", "KG", "e.V.", "GmbH & Co. KG", "UG", "OHG", "SE"]
FORMS_EN = ["Ltd", "plc", "Inc.", "LLC"]
DEPTS = [
    "Vertrieb", "Einkauf", "Personal", "Buchhaltung", "Entwicklung", "Qualität", "Lager",
    "Marketing", "Kundendienst", "Rechtsabteilung", "Fertigung", "Prüfstand", "Logistik",
]  # fmt: skip
PROJECTS = [
    "Zugspitze", "Polarstern", "Eisbrecher", "Sonnenhof", "Mühlrad", "Störfall", "Lötstelle",
    "Fährmann", "Gründach", "Wendeltreppe", "Nordlicht", "Bärenhöhle", "Kranich", "Schwalbe",
    "Watzmann", "Brocken", "Feldberg", "Rügen", "Helgoland", "Spreewald", "Harz", "Elbe",
]  # fmt: skip
LETTERS = "abcdefghijklmnopqrstuvwxyzäöü"
UMLAUT = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
)
TITLE_TOKENS = {"dr", "prof", "ing", "dipl"}
CLASSES = (
    "exact",
    "alias",
    "umlaut",
    "one typo",
    "two typos",
    "tokens",
    "org initials",
    "person initials",
    "person MF",
)

Entity = tuple[str, str, list[str], int | None]  # type, name, aliases, parent index


class Workload:
    """The generated entities, distinct per type by `identity`, parents before children."""

    def __init__(self, n: int, rng: random.Random, normalize: Callable[[str], str]) -> None:
        self.rng = rng
        self.normalize = normalize
        self.plan: list[Entity] = []
        self.seen: set[tuple[str, str]] = set()
        while len(self.plan) < n:
            org = self._add("organisation", self._org(), None)
            if org is None:
                continue
            for _ in range(rng.randint(1, 4)):
                dept = self._add("department", self._dept(), org)
                for _ in range(rng.randint(0, 6) if dept is not None else 0):
                    self._add("person", self._person(), dept)
            for _ in range(rng.randint(0, 4)):
                self._add("project", self._project(), org)
        del self.plan[n:]

    def identity(self, name: str) -> str:
        """What makes two names one: normalised, academic titles left out."""
        tokens = self.normalize(name).split()
        while len(tokens) > 1 and tokens[0] in TITLE_TOKENS:
            tokens.pop(0)
        return " ".join(tokens)

    def _add(self, type_: str, made: tuple[str, list[str]], parent: int | None) -> int | None:
        name, aliases = made
        key = (type_, self.identity(name))
        if key in self.seen or any((type_, self.identity(a)) in self.seen for a in aliases):
            return None
        self.seen.add(key)
        self.seen.update((type_, self.identity(a)) for a in aliases)
        self.plan.append((type_, name, aliases, parent))
        return len(self.plan) - 1

    def _org(self) -> tuple[str, list[str]]:
        rng = self.rng
        if rng.random() < 0.15:
            name = f"{rng.choice(LAST)} {rng.choice(TRADES_EN)} {rng.choice(FORMS_EN)}"
            return name, []
        owner = rng.choice(LAST)
        if rng.random() < 0.2:
            owner = f"{owner}-{rng.choice(LAST)}"
        elif rng.random() < 0.1:
            owner = f"{owner} & Söhne"
        trade = rng.choice(TRADES)
        place = f" {rng.choice(PLACES)}" if rng.random() < 0.5 else ""
        name = f"{owner} {trade}{place} {rng.choice(FORMS)}"
        aliases = [f"{owner} {trade[:3]}{place}"] if rng.random() < 0.3 else []
        return name, aliases

    def _dept(self) -> tuple[str, list[str]]:
        rng = self.rng
        base = f"{rng.choice(DEPTS)} {rng.choice(PLACES)}"
        if rng.random() < 0.6:
            base += f" {rng.randint(1, 99)}"
        return base, []

    def _project(self) -> tuple[str, list[str]]:
        rng = self.rng
        word = rng.choice(PROJECTS)
        year = rng.randint(2018, 2031)
        shape = rng.random()
        if shape < 0.5:
            return f"Projekt {word} {year}", [f"{word[:2].upper()}{year % 100}"]
        if shape < 0.8:
            return f"{word} Phase {rng.randint(1, 5)}", []
        return f"{word} {rng.choice(PLACES)} {year}", []

    def _person(self) -> tuple[str, list[str]]:
        rng = self.rng
        first = rng.choice(FIRST)
        if rng.random() < 0.2:
            first = f"{first} {rng.choice(FIRST)}"
        last = rng.choice(LAST)
        if rng.random() < 0.1:
            last = f"{last}-{rng.choice(LAST)}"
        title = f"{rng.choice(TITLES)} " if rng.random() < 0.15 else ""
        return f"{title}{first} {last}", []


def typo(rng: random.Random, text: str, edits: int, min_word: int = 1) -> str:
    """`edits` random edits on letters (never a digit, a space or a title), inside words of
    at least `min_word` letters."""
    chars = list(text)
    for _ in range(edits):
        spots = _letter_spots("".join(chars), min_word)
        if not spots:
            return "".join(chars)
        i = rng.choice(spots)
        op = rng.choice(["swap", "delete", "insert", "replace"])
        if op == "swap" and i + 1 < len(chars) and chars[i + 1].isalpha():
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == "delete":
            del chars[i]
        elif op == "insert":
            chars.insert(i, rng.choice(LETTERS))
        else:
            chars[i] = rng.choice([c for c in LETTERS if c != chars[i].lower()])
    return "".join(chars)


def _letter_spots(text: str, min_word: int) -> list[int]:
    spots = []
    start = 0
    for word in text.split(" "):
        if len(word) >= min_word and word.isalpha() and word.lower().strip(".") not in TITLE_TOKENS:
            spots.extend(range(start + 1, start + len(word)))  # the first letter stays
        start += len(word) + 1
    return spots


def first_names_and_surname(name: str) -> tuple[list[str], str]:
    words = [w for w in name.split() if not any(w.startswith(t) for t in ("Dr.", "Prof.", "Dipl."))]
    return words[:-1], words[-1]


def queries(work: Workload, rng: random.Random, per: int) -> dict[str, list[tuple[str, int]]]:
    """(query, index of the target) per class."""
    plan = work.plan
    out: dict[str, list[tuple[str, int]]] = {k: [] for k in CLASSES}
    alias_count = Counter(work.identity(a) for _, _, aliases, _ in plan for a in aliases)
    for i in rng.sample(range(len(plan)), len(plan)):
        type_, name, aliases, _ = plan[i]
        add = [("exact", name), ("one typo", typo(rng, name, 1)), ("two typos", typo(rng, name, 2))]
        if aliases and alias_count[work.identity(aliases[0])] == 1:
            add.append(("alias", aliases[0]))
        if name.translate(UMLAUT) != name:
            add.append(("umlaut", name.translate(UMLAUT)))
        words = work.identity(name).split()
        if len(words) >= 2:
            add.append(("tokens", " ".join(reversed(words))))
        if type_ == "organisation" and len(words) >= 2:
            add.append(("org initials", "".join(w[0] for w in words).upper()))
        if type_ == "person":
            firsts, last = first_names_and_surname(name)
            initial = firsts[0][0]
            form = rng.choice([f"{initial}. {last}", f"{last}, {initial}."])
            add.append(("person initials", form))
            add.append(("person MF", f"{initial}{last[0]}"))
        for kind, q in add:
            if len(out[kind]) < per and (q != name or kind == "exact"):
                out[kind].append((q, i))
    return out


def ambiguity(work: Workload) -> dict[str, Counter[str]]:
    """How many entities share an org initials key, a (first initial, surname) pair, MF."""
    org: Counter[str] = Counter()
    person: Counter[str] = Counter()
    mf: Counter[str] = Counter()
    for type_, name, _, _ in work.plan:
        words = work.identity(name).split()
        if len(words) >= 2:
            org["".join(w[0] for w in words)] += 1
        if type_ == "person":
            firsts, last = first_names_and_surname(name)
            person[f"{firsts[0][0].lower()} {work.identity(last)}"] += 1
            mf[(firsts[0][0] + last[0]).lower()] += 1
    return {"org initials": org, "person initials": person, "person MF": mf}


def ambiguous_key(kind: str, q: str, target: Entity, work: Workload) -> str | None:
    if kind == "org initials":
        return work.normalize(q)
    if kind in ("person initials", "person MF"):
        firsts, last = first_names_and_surname(target[1])
        if kind == "person MF":
            return (firsts[0][0] + last[0]).lower()
        return f"{firsts[0][0].lower()} {work.identity(last)}"
    return None


def difference(work: Workload, new: str, old: str) -> str:
    """Why a refused distinct name is not the candidate: the class of the difference."""
    from rapidfuzz.distance import OSA

    a, b = work.identity(new), work.identity(old)
    digits_a = sorted(t for t in a.split() if any(c.isdigit() for c in t))
    digits_b = sorted(t for t in b.split() if any(c.isdigit() for c in t))
    if digits_a != digits_b:
        return "number"
    ta, tb = set(a.split()), set(b.split())
    if ta < tb or tb < ta:
        return "suffix"
    if OSA.distance(a, b) <= 2:
        return "one or two letters"
    return "word"


# -- one measurement, against whichever src is on sys.path -------------------------------------


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from groundnote.domain.clock import FixedClock
    from groundnote.domain.errors import DuplicateCandidate
    from groundnote.graph import fts
    from groundnote.graph.entities import Author, create_entity
    from groundnote.graph.normalize import normalize
    from groundnote.graph.resolve import resolve_key
    from groundnote.graph.trigram import index_for
    from groundnote.runtime import open_runtime

    literal = "query" in inspect.signature(resolve_key).parameters
    # Before the index held the current rows (graph/current.py), resolve read them on `conn`.
    reads_rows = "conn" in inspect.signature(resolve_key).parameters
    # Trees between the change record and 1c9369e told the index of each write themselves.
    published = getattr(fts, "published", None)
    published_takes_seqs = published is not None and (
        len(inspect.signature(published).parameters) > 1
    )

    def resolve(conn: Any, index: Any, q: str) -> list[Any]:
        extra = {"query": q} if literal else {}
        return resolve_key(*([conn] if reads_rows else []), index, normalize(q), **extra)

    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    author = Author.of("mcp", "grant:bench", clock.instant(), "2026-11-30")
    result: dict[str, Any] = {}
    home = Path(tempfile.mkdtemp(prefix="gn-resolve-scale-"))
    try:
        rt = open_runtime(home, clock=clock, environ={})
        rt.config.graph.max_depth = 16
        rt.home.create_scope("bench")
        db = rt.home.scope_db("bench")
        index = index_for(db)
        work = Workload(args.n, random.Random(args.seed), normalize)
        ids: list[str] = []
        refused: Counter[str] = Counter()
        examples: dict[str, tuple[str, str]] = {}

        def create(type_: str, name: str, aliases: list[str], parent: str | None, force: bool):
            with db.write() as conn:
                written = create_entity(
                    conn, index, rt.config.graph, "bench", author, type=type_, name=name,
                    aliases=aliases, parent_id=parent, force=force,
                    reason="bench: distinct by construction" if force else None,
                )  # fmt: skip
            if published_takes_seqs:  # before the change record (store.changes)
                published(db, [written.seq])
            elif published is not None:
                published(db)
            return written.id

        start = time.perf_counter()
        for type_, name, aliases, parent in work.plan:
            parent_id = None if parent is None else ids[parent]
            try:
                ids.append(create(type_, name, aliases, parent_id, False))
            except DuplicateCandidate as refusal:
                other = refusal.extras["candidates"][0]["name"]
                why = difference(work, name, other)
                refused[why] += 1
                examples.setdefault(why, (name, other))
                ids.append(create(type_, name, aliases, parent_id, True))
        result["load_s"] = time.perf_counter() - start
        result["creates"] = len(ids)
        result["false"] = dict(refused)
        result["false_examples"] = examples

        # true duplicates: the same thing written again
        rng = random.Random(args.seed + 1)
        kinds: Counter[str] = Counter()
        caught: Counter[str] = Counter()
        missed: dict[str, tuple[str, str]] = {}
        for i in rng.sample(range(len(work.plan)), len(work.plan)):
            type_, name, _, parent = work.plan[i]
            parent_id = None if parent is None else ids[parent]
            tries: list[tuple[str, str, str | None]] = []
            if name.translate(UMLAUT) != name:
                tries.append(("umlaut spelling", name.translate(UMLAUT), parent_id))
                other = rng.choice([p for p in ids[:200] if p != parent_id])
                if type_ != "organisation":
                    tries.append(("umlaut spelling, other parent", name.translate(UMLAUT), other))
            tries.append(("case", name.upper(), parent_id))
            if type_ == "organisation" and not name.endswith(tuple(FORMS_EN)):
                body = name.rsplit(" ", 1)[0].removesuffix(" & Co.").removesuffix(" GmbH")
                tries.append(("legal form", f"{body} {rng.choice(['AG', 'SE', 'KG'])}", parent_id))
            if type_ == "person":
                firsts, last = first_names_and_surname(name)
                bare = " ".join([*firsts, last])
                tries.append(("title", bare if bare != name else f"Dr. {name}", parent_id))
            if any(len(w) >= 4 and w.isalpha() for w in name.split()):
                tries.append(("one typo", typo(rng, name, 1, min_word=4), parent_id))
            kind, written, where = rng.choice(tries)
            if kinds[kind] >= args.duplicates or work.identity(written) == "":
                continue
            if kind == "one typo" and work.identity(written) == work.identity(name):
                continue
            kinds[kind] += 1
            try:
                create(type_, written, [], where, False)
                missed.setdefault(kind, [])
                missed[kind].append((written, name))
            except DuplicateCandidate:
                caught[kind] += 1
            if all(kinds[k] >= args.duplicates for k in ("umlaut spelling", "case", "one typo")):
                break
        result["true"] = {k: [caught[k], kinds[k]] for k in kinds}
        result["true_missed"] = missed

        # resolve quality
        per_class = queries(work, random.Random(args.seed + 2), args.queries)
        shared = ambiguity(work)
        quality: dict[str, list[float]] = {}
        with db.read() as conn:
            for kind, items in per_class.items():
                hit1 = hit5 = unclear = 0
                for q, target in items:
                    found = [m.id for m in resolve(conn, index, q)]
                    hit1 += bool(found) and found[0] == ids[target]
                    hit5 += ids[target] in found
                    key = ambiguous_key(kind, q, work.plan[target], work)
                    unclear += key is not None and shared[kind][key] > 5
                quality[kind] = [len(items), hit1 / len(items), hit5 / len(items), unclear]
        result["quality"] = quality
        rt.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if args.big:
        result["timing"] = timing(args, per_class_queries=args.queries)
    return result


def timing(args: argparse.Namespace, per_class_queries: int) -> dict[str, float]:
    from groundnote.domain.clock import FixedClock
    from groundnote.graph.entities import Author, create_entity
    from groundnote.graph.normalize import normalize
    from groundnote.graph.resolve import resolve_key
    from groundnote.graph.trigram import index_for
    from groundnote.runtime import open_runtime

    literal = "query" in inspect.signature(resolve_key).parameters
    reads_rows = "conn" in inspect.signature(resolve_key).parameters  # as in measure()
    clock = FixedClock(datetime(2026, 11, 30, 9, tzinfo=UTC))
    author = Author.of("mcp", "grant:bench", clock.instant(), "2026-11-30")
    home = Path(tempfile.mkdtemp(prefix="gn-resolve-big-"))
    try:
        rt = open_runtime(home, clock=clock, environ={})
        rt.config.graph.max_depth = 16
        rt.home.create_scope("bench")
        db = rt.home.scope_db("bench")
        index = index_for(db)
        work = Workload(args.big, random.Random(args.seed), normalize)
        ids: list[str] = []
        for chunk in range(0, len(work.plan), 5000):
            with db.write() as conn:
                for type_, name, aliases, parent in work.plan[chunk : chunk + 5000]:
                    written = create_entity(
                        conn, index, rt.config.graph, "bench", author, type=type_, name=name,
                        aliases=aliases, parent_id=None if parent is None else ids[parent],
                        similar_check=False,
                    )  # fmt: skip
                    ids.append(written.id)
        len(index)
        samples: list[float] = []
        per_kind: dict[str, float] = {}
        with db.read() as conn:
            items = queries(work, random.Random(args.seed + 2), per_class_queries)
            for kind, kind_items in items.items():
                taken = []
                for q, _ in kind_items:
                    key = normalize(q)
                    extra = {"query": q} if literal else {}
                    t0 = time.perf_counter()
                    resolve_key(*([conn] if reads_rows else []), index, key, **extra)
                    taken.append((time.perf_counter() - t0) * 1000)
                samples.extend(taken)
                taken.sort()
                per_kind[kind] = taken[int(len(taken) * 0.95)]
        rt.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    samples.sort()
    return {
        "entities": len(ids),
        "queries": len(samples),
        "p50": samples[len(samples) // 2],
        "p95": samples[int(len(samples) * 0.95)],
        "p95_per_class": per_kind,
    }


# -- printing ----------------------------------------------------------------------------------


def report(runs: dict[str, dict[str, Any]], args: argparse.Namespace) -> None:
    names = list(runs)
    print(f"\nworkload: {args.n:,} distinct entities, seed {args.seed}; runs: {', '.join(names)}")
    head = f"{'class':<16}{'n':>5}{'amb.':>6}"
    for name in names:
        head += f"{name + ' @1':>14}{'@5':>7}"
    print("\nresolve quality (hit@1, hit@5; amb. = queries > 5 entities answer equally)")
    print(head)
    first = runs[names[0]]["quality"]
    for kind in first:
        line = f"{kind:<16}{first[kind][0]:>5}{first[kind][3]:>6}"
        for name in names:
            _, h1, h5, _ = runs[name]["quality"][kind]
            line += f"{h1:>14.3f}{h5:>7.3f}"
        print(line)
    print("\nduplicate refusals of the distinct creates (false), by what tells the names apart")
    for name in names:
        run = runs[name]
        total = sum(run["false"].values())
        parts = ", ".join(f"{k} {v}" for k, v in sorted(run["false"].items()))
        print(
            f"  {name}: {total} of {run['creates']:,} ({100 * total / run['creates']:.2f} %)"
            f"{': ' + parts if parts else ''}"
        )
        for why, (new, old) in sorted(run["false_examples"].items()):
            print(f"      {why}: {new!r} refused for {old!r}")
    print("\ntrue duplicates refused (the same thing written again)")
    for name in names:
        run = runs[name]
        parts = ", ".join(f"{k} {c}/{n}" for k, (c, n) in sorted(run["true"].items()))
        print(f"  {name}: {parts}")
        for kind, pairs in sorted(run["true_missed"].items()):
            shown = ", ".join(f"{new!r} for {old!r}" for new, old in pairs[: args.show])
            print(f"      missed {kind} ({len(pairs)}): {shown}")
    if all("timing" in r for r in runs.values()):
        print("\nresolve at scale (direct, 5 candidates with paths)")
        base = runs[names[0]]["timing"]
        for name in names:
            t = runs[name]["timing"]
            ratio = (
                f"  ({t['p50'] / base['p50']:.2f}x / {t['p95'] / base['p95']:.2f}x of {names[0]})"
                if name != names[0]
                else ""
            )
            print(
                f"  {name}: {t['entities']:,} entities, {t['queries']} queries: "
                f"p50 {t['p50']:.2f} ms, p95 {t['p95']:.2f} ms{ratio}"
            )
            print(
                "      p95 per class: "
                + ", ".join(f"{k} {v:.2f}" for k, v in t["p95_per_class"].items())
            )
    for name in names:
        print(f"  {name}: {runs[name]['creates']:,} creates with every check in "
              f"{runs[name]['load_s']:.1f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="distinct entities created")
    parser.add_argument(
        "--big", type=int, default=100_000, help="entities for the timing (0: none)"
    )
    parser.add_argument("--queries", type=int, default=300, help="queries per class")
    parser.add_argument("--duplicates", type=int, default=100, help="true duplicates per kind")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=3, help="examples shown per kind")
    parser.add_argument("--before", help="a git revision to measure first, in a child process")
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(args.src or ROOT / "src"))
    if args.json:
        print(json.dumps(measure(args)))
        return
    runs: dict[str, dict[str, Any]] = {}
    if args.before:
        old = Path(tempfile.mkdtemp(prefix="gn-before-"))
        try:
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.before, "src"],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            forwarded = [a for a in sys.argv[1:] if a not in ("--before", args.before)]
            child = subprocess.run(
                [sys.executable, __file__, *forwarded, "--json", "--src", str(old / "src")],
                check=True,
                capture_output=True,
                text=True,
            )
            runs[f"before ({args.before})"] = json.loads(child.stdout.strip().splitlines()[-1])
        finally:
            shutil.rmtree(old, ignore_errors=True)
    runs["this tree"] = measure(args)
    report(runs, args)


if __name__ == "__main__":
    main()
