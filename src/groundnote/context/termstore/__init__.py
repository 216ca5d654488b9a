"""The terms subsystem: concepts and terms, reached only through `TermStore`."""

from groundnote.context.termstore.store import SUBSYSTEM, TermStore

__all__ = ["SUBSYSTEM", "TermStore"]
