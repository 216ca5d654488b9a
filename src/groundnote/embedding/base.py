"""The embedder interface and what every adapter shares: unit rows and the query cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "Matrix", "QueryCache", "Vector", "unit_rows"]

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]


class Embedder(Protocol):
    """`model_id` names model and variant: vectors of two ids are never compared."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def passages(self, texts: Sequence[str]) -> Matrix:
        """One unit-length float32 row per text, as stored documents."""
        ...

    def query(self, text: str) -> Vector:
        """The unit-length vector of a search query (cached per process)."""
        ...


def unit_rows(rows: npt.ArrayLike) -> Matrix:
    """Rows scaled to length 1, so that a dot product is the cosine similarity."""
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (matrix / norms).astype(np.float32, copy=False)
    return out


class QueryCache:
    """The newest `size` query vectors: an agent repeats and refines the same questions."""

    def __init__(self, embed: Callable[[str], Vector], size: int = 1024) -> None:
        self._embed = embed
        self._size = size
        self._items: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, text: str) -> Vector:
        with self._lock:
            if text in self._items:
                self._items.move_to_end(text)
                return self._items[text]
        vector = self._embed(text)
        vector.setflags(write=False)
        with self._lock:
            self._items[text] = vector
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return vector
