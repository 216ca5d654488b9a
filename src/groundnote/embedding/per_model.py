"""One index per store and embedding model in a process, made on first use.

Core's text vectors and graph's name vectors each keep their matrix this way: a store's
index lives as long as the store object does, and another model's vectors never mix in.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from groundnote.embedding.base import Embedder

Key = TypeVar("Key")
Index = TypeVar("Index")


class PerModel(Generic[Key, Index]):
    """Indexes by store and model id, made by `make` on first use, safe across threads."""

    def __init__(self, make: Callable[[Key, Embedder], Index]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._made: weakref.WeakKeyDictionary[Key, dict[str, Index]] = weakref.WeakKeyDictionary()

    def get(self, key: Key, embedder: Embedder) -> Index:
        """The index of `key` for `embedder`'s model."""
        with self._lock:
            per_model = self._made.setdefault(key, {})
            found = per_model.get(embedder.model_id)
            if found is None:
                found = per_model[embedder.model_id] = self._make(key, embedder)
            return found
