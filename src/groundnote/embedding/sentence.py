"""A sentence-transformers model folder on this machine (`search.model_path`), loaded offline."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundnote.domain.errors import EmbedderUnavailable
from groundnote.embedding.base import Matrix, QueryCache, Vector, unit_rows

__all__ = ["SentenceTransformersFolder"]


class SentenceTransformersFolder:
    def __init__(self, path: str | None) -> None:
        if not path:
            raise EmbedderUnavailable(
                "search.embedder is sentence-transformers but search.model_path is not set.",
                remedy="Set search.model_path to the folder of the model on this machine.",
            )
        folder = Path(path).expanduser()
        if not (folder / "config.json").is_file() and not (folder / "modules.json").is_file():
            raise EmbedderUnavailable(
                f"search.model_path {str(folder)!r} is not a sentence-transformers model folder "
                "(it has no modules.json or config.json).",
                remedy="Point search.model_path at the folder that holds the model's files "
                "(saved with model.save(path) or copied from a download).",
            )
        # The folder is all there is: never reach for a hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderUnavailable(
                "search.embedder is sentence-transformers but the package is not installed.",
                remedy="Install it with `pip install sentence-transformers`.",
            ) from exc
        self._model: Any = SentenceTransformer(str(folder), device="cpu")
        self._id = f"sentence-transformers:{folder.name}"
        self._dimension = int(self._model.get_sentence_embedding_dimension())
        self.query = QueryCache(self._query)

    @property
    def model_id(self) -> str:
        return self._id

    @property
    def dimension(self) -> int:
        return self._dimension

    def passages(self, texts: Sequence[str]) -> Matrix:
        return unit_rows(self._model.encode(list(texts), batch_size=32))

    def _query(self, text: str) -> Vector:
        vector: Vector = unit_rows(self._model.encode([text]))[0]
        return vector
