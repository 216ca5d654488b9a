"""The voice-profile subsystem, reached only through `VoiceStore`."""

from groundnote.context.voicestore.store import SUBSYSTEM, VoiceStore

__all__ = ["SUBSYSTEM", "VoiceStore"]
