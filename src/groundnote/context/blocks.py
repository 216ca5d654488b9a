"""Content files split into blocks, each keyed by the hash of its normalised text (F-03).

A block is a heading, a paragraph or a fenced code block of a Markdown file. Its unit id is
durable: an explicit `{#anchor}` at the end of its first line, else derived from its content
key, so inserting a paragraph renumbers nothing and a state record keeps addressing its unit.
Targets live at `targets/<locale>/<same path>` and align with the source block by position.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import frontmatter

from groundnote.context.locales import canonical
from groundnote.context.recipe import Recipe
from groundnote.context.sourcefile import source_error

__all__ = [
    "TARGETS_DIR",
    "Block",
    "Document",
    "content_key",
    "discover",
    "document_key",
    "fingerprint",
    "glob_regex",
    "normalise",
    "parse_document",
    "split_blocks",
    "target_files",
]

TARGETS_DIR = "targets"
_ANCHOR = re.compile(r"\s*\{#([A-Za-z0-9][A-Za-z0-9_.-]*)\}\s*$")
_SPACE = re.compile(r"\s+")
_SKIP = {".groundnote", TARGETS_DIR, ".git"}


@dataclass(frozen=True)
class Block:
    unit: str
    content_key: str
    text: str  # normalised source text
    targets: tuple[tuple[str, str], ...]  # (canonical locale, normalised text)


@dataclass(frozen=True)
class Document:
    path: str  # relative to the project, posix
    key: str  # durable key: frontmatter `key:`, else the path
    collections: tuple[str, ...]
    fingerprint: str  # hash of the source and its target files
    blocks: tuple[Block, ...]


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def content_key(text: str) -> str:
    return _digest(normalise(text))


def _digest(normalised: str) -> str:
    return hashlib.sha256(normalised.encode()).hexdigest()[:32]


def split_blocks(body: str) -> list[tuple[str | None, str]]:
    """(anchor or None, raw text) per block: blank lines end paragraphs, headings stand alone."""
    found: list[tuple[str | None, str]] = []
    pending: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if pending:
            first, rest = pending[0], pending[1:]
            match = _ANCHOR.search(first)
            anchor = match.group(1) if match else None
            if match:
                first = first[: match.start()]
            text = "\n".join([first, *rest]).strip()
            if text:
                found.append((anchor, text))
            pending.clear()

    for line in body.splitlines():
        stripped = line.strip()
        if fence is not None:
            pending.append(line)
            if stripped.startswith(fence):
                fence = None
                flush()
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
            pending.append(line)
        elif not stripped:
            flush()
        elif stripped.startswith("#"):
            flush()
            pending.append(line)
            flush()
        else:
            pending.append(line)
    flush()
    return found


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A project-relative glob: `**/` spans directories, `*` and `?` stay inside one."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(f"^{out}$")


def discover(project_dir: Path, recipe: Recipe) -> dict[str, tuple[str, ...]]:
    """Source path → the collections whose globs match it, for every Markdown file."""
    globs = [(c.label, [glob_regex(g) for g in c.files]) for c in recipe.collections]
    found: dict[str, tuple[str, ...]] = {}
    for file in sorted(project_dir.rglob("*.md")):
        rel = file.relative_to(project_dir).as_posix()
        if rel.split("/", 1)[0] in _SKIP:
            continue
        labels = tuple(label for label, rx in globs if any(r.match(rel) for r in rx))
        if labels:
            found[rel] = labels
    return found


def target_files(project_dir: Path, rel: str) -> list[tuple[str, Path]]:
    """(canonical locale, file) of each target of a source path, in locale order."""
    root = project_dir / TARGETS_DIR
    if not root.is_dir():
        return []
    found: dict[str, Path] = {}
    for folder in sorted(root.iterdir()):
        candidate = folder / rel
        if folder.is_dir() and candidate.is_file():
            try:
                locale = canonical(folder.name)
            except ValueError as exc:
                raise source_error(folder, "", str(exc)) from None
            found.setdefault(locale, candidate)
    return sorted(found.items())


def _read(file: Path) -> frontmatter.Post:
    try:
        return frontmatter.loads(file.read_text("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise source_error(file, "", f"cannot read the Markdown file: {exc}") from None


def fingerprint(project_dir: Path, rel: str, collections: tuple[str, ...]) -> str:
    """What extraction of a document depends on: its bytes, its targets', its collections."""
    digest = hashlib.sha256((project_dir / rel).read_bytes())
    for locale, file in target_files(project_dir, rel):
        digest.update(b"\0" + locale.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:32] + "|" + ",".join(collections)


def document_key(project_dir: Path, rel: str) -> str:
    """A document's durable key alone, without splitting it: what `up` checks for clashes
    before it writes any document."""
    return _key(_read(project_dir / rel), project_dir, rel)


def _key(post: frontmatter.Post, project_dir: Path, rel: str) -> str:
    """Frontmatter `key:`, else the path."""
    key = post.metadata.get("key", rel)
    if not isinstance(key, str) or not key.strip():
        raise source_error(project_dir / rel, "key", "the document key must be non-empty text")
    return key.strip()


def parse_document(
    project_dir: Path, rel: str, collections: tuple[str, ...], digest: str | None = None
) -> Document:
    """Split a document and its targets into blocks.

    `digest` is the document's fingerprint when the caller took it before reading: one taken
    after reading could describe a file edited meanwhile, and the edit would never be parsed.
    """
    post = _read(project_dir / rel)
    key = _key(post, project_dir, rel)
    targets = [
        (locale, [normalise(t) for _, t in split_blocks(_read(file).content)])
        for locale, file in target_files(project_dir, rel)
    ]
    blocks: list[Block] = []
    seen: dict[str, int] = {}
    for position, (anchor, raw) in enumerate(split_blocks(post.content)):
        text = normalise(raw)
        ckey = _digest(text)
        unit = anchor or f"u{ckey[:12]}"
        seen[unit] = seen.get(unit, 0) + 1
        if seen[unit] > 1:  # the same wording twice in one document
            unit = f"{unit}-{seen[unit]}"
        overlays = tuple(
            (locale, texts[position]) for locale, texts in targets if position < len(texts)
        )
        blocks.append(Block(unit=unit, content_key=ckey, text=text, targets=overlays))
    return Document(
        path=rel,
        key=key,
        collections=collections,
        fingerprint=digest or fingerprint(project_dir, rel, collections),
        blocks=tuple(blocks),
    )
