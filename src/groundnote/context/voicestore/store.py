"""Voice profiles projected from `voice.yaml` files; a recipe's binding resolves here."""

from __future__ import annotations

import json

from groundnote.context.presence import has_table
from groundnote.context.seeds import DEFAULT_PROFILE, VoiceProfile
from groundnote.store import Database, Subsystem, load_migrations

__all__ = ["SUBSYSTEM", "VoiceStore"]

SUBSYSTEM = Subsystem("voice", load_migrations("groundnote.context.voicestore", "voice"))


class VoiceStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def replace(self, profiles: dict[str, VoiceProfile]) -> None:
        with self.db.write() as conn:
            conn.execute("DELETE FROM voice_profiles")
            conn.executemany(
                "INSERT INTO voice_profiles (name, source, profile) VALUES (?, ?, ?)",
                [
                    (
                        name,
                        "voice.yaml" if name == DEFAULT_PROFILE else f"profiles/{name}/voice.yaml",
                        json.dumps(p.model_dump(), sort_keys=True),
                    )
                    for name, p in profiles.items()
                ],
            )

    def profiles(self) -> dict[str, VoiceProfile]:
        with self.db.read() as conn:
            if not has_table(conn, "voice_profiles"):
                return {}
            rows = conn.execute("SELECT name, profile FROM voice_profiles ORDER BY name").fetchall()
        return {r["name"]: VoiceProfile.model_validate_json(r["profile"]) for r in rows}

    def resolve(self, name: str) -> VoiceProfile | None:
        """The profile a recipe's `voice: {profile: name}` binds, from any directory inside."""
        return self.profiles().get(name)
