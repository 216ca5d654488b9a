"""One embedder per process and setting: loading a model once is what keeps search fast."""

from __future__ import annotations

import threading

from groundnote.config import SearchConfig
from groundnote.embedding.base import Embedder
from groundnote.embedding.local import LocalE5
from groundnote.embedding.openai import OpenAIEndpoint
from groundnote.embedding.sentence import SentenceTransformersFolder

__all__ = ["embedder_for"]

_LOCK = threading.Lock()
_LOADED: dict[tuple[object, ...], Embedder] = {}


def _key(config: SearchConfig) -> tuple[object, ...]:
    return (config.embedder, config.model_path, config.url, config.model, config.api_key_env)


def embedder_for(config: SearchConfig) -> Embedder:
    """The embedder `config` names, loaded on first use; raises EmbedderUnavailable."""
    key = _key(config)
    with _LOCK:
        found = _LOADED.get(key)
        if found is None:
            found = _LOADED[key] = _load(config)
        return found


def _load(config: SearchConfig) -> Embedder:
    if config.embedder == "sentence-transformers":
        return SentenceTransformersFolder(config.model_path)
    if config.embedder == "openai":
        return OpenAIEndpoint(config.url, config.model, config.api_key_env)
    return LocalE5(config.threads)
