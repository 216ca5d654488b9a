"""An OpenAI-compatible embeddings endpoint (`search.url` + `/embeddings`, `search.model`)."""

from __future__ import annotations

import os
from collections.abc import Sequence

import httpx
import numpy as np

from groundnote.domain.errors import EmbedderUnavailable
from groundnote.embedding.base import Matrix, QueryCache, Vector, unit_rows

__all__ = ["OpenAIEndpoint"]

BATCH = 64
TIMEOUT_SECONDS = 30.0


class OpenAIEndpoint:
    def __init__(self, url: str | None, model: str | None, api_key_env: str | None = None) -> None:
        if not url or not model:
            raise EmbedderUnavailable(
                "search.embedder is openai but search.url or search.model is not set.",
                remedy="Set search.url (e.g. http://127.0.0.1:8080/v1) and search.model.",
            )
        headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise EmbedderUnavailable(
                    f"The environment variable {api_key_env} (search.api_key_env) is not set.",
                    remedy=f"Set {api_key_env} to the endpoint's API key.",
                )
            headers["Authorization"] = f"Bearer {key}"
        self._url = url.rstrip("/") + "/embeddings"
        self._model = model
        self._client = httpx.Client(headers=headers, timeout=TIMEOUT_SECONDS)
        self._id = f"openai:{url.rstrip('/')}:{model}"
        self._dimension: int | None = None
        self.query = QueryCache(self._query)

    @property
    def model_id(self) -> str:
        return self._id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._embed(["dimension"])
        assert self._dimension is not None
        return self._dimension

    def passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack(
            [self._embed(list(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        )

    def _query(self, text: str) -> Vector:
        vector: Vector = self._embed([text])[0]
        return vector

    def _embed(self, texts: list[str]) -> Matrix:
        try:
            response = self._client.post(self._url, json={"model": self._model, "input": texts})
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows = unit_rows([item["embedding"] for item in data])
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbedderUnavailable(
                f"The embeddings endpoint {self._url} did not answer with embeddings: {exc}",
                remedy="Check that it runs and serves the model named in search.model, "
                'or set "search": {"semantic": "off"}.',
            ) from exc
        if len(rows) != len(texts):
            raise EmbedderUnavailable(
                f"The embeddings endpoint {self._url} returned {len(rows)} vectors for "
                f"{len(texts)} texts.",
                remedy="Use an endpoint that follows the OpenAI embeddings API.",
            )
        self._dimension = int(rows.shape[1])
        return rows
