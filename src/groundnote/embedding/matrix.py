"""One process's copy of a projection's vectors: a growing matrix of labelled slots, searched
exactly. Shared by the text vectors of search (core/vectors.py) and the name vectors of
entity resolve (graph/name_vectors.py).

Rows are float16: half the memory and the bytes a search reads of float32, and the ranking is
unchanged at this precision. Every slot is compared with the query (bench/semantic.py:
numkong's SIMD float16 dot products at 100,000 rows took half the time of usearch's exact
search and a third of numpy's float32 product). A freed slot is zeroed and labelled FREE,
never reported, and reused.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numkong import cdist

from groundnote.embedding.base import Vector

__all__ = ["VectorRows"]

FREE = -1


class VectorRows:
    def __init__(self, dim: int) -> None:
        self._matrix: npt.NDArray[np.float16] = np.zeros((0, dim), dtype=np.float16)
        self._labels: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._free: list[int] = []

    def __len__(self) -> int:
        """How many slots hold a vector."""
        return self._size - len(self._free)

    def add(self, label: int, row: Vector) -> int:
        """Put `row` under `label` in a free slot (the matrix grows by doubling); the slot."""
        if self._free:
            slot = self._free.pop()
        else:
            if self._size == len(self._labels):
                grown = max(1024, 2 * self._size)
                self._matrix = np.resize(self._matrix, (grown, self._matrix.shape[1]))
                self._labels = np.resize(self._labels, grown)
            slot = self._size
            self._size += 1
        self.set(slot, label, row)
        return slot

    def set(self, slot: int, label: int, row: Vector) -> None:
        self._matrix[slot] = row
        self._labels[slot] = label

    def free(self, slot: int) -> None:
        self._matrix[slot] = 0
        self._labels[slot] = FREE
        self._free.append(slot)

    def nearest(self, query: Vector, k: int, floor: float) -> list[tuple[int, int, float]]:
        """(slot, label, similarity) of the `k` slots most similar to `query` from `floor` on,
        best first, ties by label."""
        if len(self) == 0 or k <= 0:
            return []
        # One pass over every slot: numkong's float16 dot products (what usearch's exact
        # search calls, without its per-call index and sort) measured 2× faster at 100,000.
        similarity = np.asarray(
            cdist(
                query.astype(np.float16)[None, :],
                self._matrix[: self._size],
                metric="dot",  # float64 out: asking float32 measured 10x slower (numkong 7.8)
            )
        )[0]
        slots = np.flatnonzero(similarity >= floor)
        if len(slots) > k:
            slots = slots[np.argpartition(-similarity[slots], k - 1)[:k]]
        scored = [
            (int(slot), int(self._labels[slot]), float(similarity[slot]))
            for slot in slots
            if self._labels[slot] != FREE
        ]
        scored.sort(key=lambda item: (-item[2], item[1]))
        return scored
