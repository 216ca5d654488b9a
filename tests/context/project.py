"""A small content project on disk, the fixture most context tests start from."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["RECIPE", "TERMS", "write_project"]

RECIPE = """\
project: docs-site
source_locale: en
collections:
  - label: guides
    files: ["guides/**/*.md"]
    governance:
      - {profile: formal, channel: web, from: 2026-01-01, to: 2027-01-01}
      - {profile: casual, channel: web, from: 2027-01-01}
  - label: blog
    files: ["blog/*.md"]
defaults:
  terms_source: terms.json
voice:
  profile: formal
"""

TERMS = {
    "concepts": [
        {
            "id": "email",
            "terms": [
                {"text": "email", "locale": "en", "status": "preferred"},
                {"text": "e-mail", "locale": "en", "status": "admitted", "to": "2027-01-01"},
                {
                    "text": "e-mail",
                    "locale": "en",
                    "status": "deprecated",
                    "from": "2027-01-01",
                    "market": "US",
                },
                {"text": "E-Mail", "locale": "de_DE", "status": "preferred"},
            ],
        },
        {
            "id": "sign-in",
            "terms": [
                {"text": "sign in", "locale": "en", "status": "preferred"},
                {"text": "login", "locale": "en", "status": "forbidden"},
            ],
        },
    ]
}

START = """\
---
key: start
---
# Getting started {#intro}

Send us an email or an e-mail today. Email works.

Sign in with your account.
"""

START_DE = """\
# Erste Schritte

Schicken Sie uns eine E-Mail.

Melden Sie sich an.
"""

NEWS = """\
# News

Our e-mail login changed.
"""


def write(root: Path, rel: str, text: str) -> Path:
    file = root / rel
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, "utf-8")
    return file


def write_project(root: Path) -> Path:
    write(root, "groundnote-context.yaml", RECIPE)
    write(root, "terms.json", json.dumps(TERMS, indent=1))
    write(root, "guides/start.md", START)
    write(root, "targets/de_DE/guides/start.md", START_DE)
    write(root, "blog/news.md", NEWS)
    write(root, "notes/ignored.md", "Not in any collection: an email here is not content.\n")
    state = {
        "document": "start",
        "unit": "intro",
        "variant": "de_DE",
        "decision": "signed_off",
        "target_hash": "t-1",
        "source_basis": "b-1",
        "by": "person:ruth",
        "at": "2026-11-01T10:00:00Z",
    }
    write(root, "state/start.jsonl", json.dumps(state) + "\n")
    memory = {
        "entries": [{"source": "Sign in with your account.", "variants": {"nb_NO": "Logg inn."}}]
    }
    write(root, "memory/ui.memory.json", json.dumps(memory))
    write(root, "voice.yaml", "tone: plain\nrules: [short sentences]\n")
    write(root, "profiles/formal/voice.yaml", "tone: formal\navoid: [slang]\n")
    return root
