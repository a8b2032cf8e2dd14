"""Remote embeddings from any server that speaks OpenAI's ``POST /v1/embeddings`` (spec 004).

:class:`OpenAICompatibleProvider` sends ``{"model", "input": [...], "encoding_format":
"float"}`` (plus ``"dimensions"`` when ``request_dimensions`` is set) and reads
``data[i].embedding`` back in ``data[i].index`` order.

* **Credentials**: the API key is read from the environment variable *named* by
  ``api_key_env`` at each request and sent as ``Authorization: Bearer``. The key itself is
  never stored on the object, in its ``repr``, in error messages, logs, fingerprints or snapshot
  manifests. An unset variable sends no header (local servers rarely want one). A user and
  password in ``base_url`` (``https://user:pass@host/v1``) are sent as HTTP basic auth and
  kept out of the URL everything else sees: ``base_url`` is the redacted form (what errors,
  logs, the fingerprint and manifests show), and the URL requests go to holds no userinfo
  (so an HTTP library logging it cannot leak the password either).
* **Strict dimensions**: every returned vector must have exactly ``dimensions`` floats; a
  response of another size is rejected with :class:`~schemaseek.errors.EmbeddingError`, so
  nothing of the wrong size is ever stored and search stays lexical.
* **Deadlines**: a query embedding must finish within ``query_timeout_s`` (default 2 s, the
  whole request, not per phase); document batches use ``timeout_s``.
* **Batching and concurrency** (cold builds against TEI, vLLM, Ollama ...): documents go in
  batches of ``batch_size`` (64) with at most ``max_in_flight`` (4, the setting
  ``embedding_max_in_flight``) requests outstanding, so the server batches across them; rows
  land in input order whatever order the answers come in. A batch the server refuses as too large
  (HTTP 413, as TEI does past its ``--max-client-batch-size``) is split in halves and retried.

Vectors are L2-normalised on arrival, as the provider protocol promises.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import httpx
import numpy as np

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.sources.redact import redact_url

__all__ = ["OpenAICompatibleProvider"]

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 1536
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_QUERY_TIMEOUT_S = 2.0
DEFAULT_MAX_IN_FLIGHT = 4


class OpenAICompatibleProvider:
    """Embeddings over HTTP from an OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        model: the model name sent in each request (also this provider's ``model_id``).
        dimensions: the exact vector size expected back (strict; see the module docstring).
        base_url: the API root; ``/embeddings`` is appended (``http://host:port/v1``).
        api_key_env: name of the environment variable holding the API key.
        request_dimensions: also send ``"dimensions"`` (for models that can shorten vectors).
        batch_size: texts per document request.
        max_in_flight: most document requests outstanding at once.
        query_timeout_s: deadline of one query embedding, end to end.
        timeout_s: per-phase timeout of document requests.
        query_prefix: prepended to every query (asymmetric models).
        transport: an httpx transport (tests, proxies); default a plain HTTP(S) connection pool.
    """

    provider_name = "openai"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        dimensions: int = DEFAULT_DIMENSIONS,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        request_dimensions: bool = False,
        batch_size: int = 64,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        query_timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        timeout_s: float = 60.0,
        query_prefix: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model:
            raise ConfigError("the openai embedding provider needs a model name")
        if min(dimensions, batch_size, max_in_flight) < 1:
            raise ConfigError("dimensions, batch_size and max_in_flight must be >= 1")
        if query_timeout_s <= 0 or timeout_s <= 0:
            raise ConfigError("query_timeout_s and timeout_s must be > 0")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"base_url must be an http(s) URL, not {base_url!r}")
        self.model = model
        self._dimensions = dimensions
        parts = httpx.URL(base_url.rstrip("/"))
        self._auth = httpx.BasicAuth(parts.username, parts.password) if parts.username else None
        self._endpoint = str(parts.copy_with(username=None, password=None))
        self.base_url = redact_url(base_url.rstrip("/"))
        """The API root with any password masked (what is shown anywhere)."""
        self.api_key_env = api_key_env
        self.request_dimensions = request_dimensions
        self.batch_size = batch_size
        self.max_in_flight = max_in_flight
        self.query_timeout_s = query_timeout_s
        self.timeout_s = timeout_s
        self.query_prefix = query_prefix
        limits = httpx.Limits(max_connections=max_in_flight + 4, max_keepalive_connections=8)
        self._client = httpx.Client(transport=transport, limits=limits, timeout=timeout_s)
        self._bulk = ThreadPoolExecutor(max_in_flight, thread_name_prefix="embed-http")
        self._queries = ThreadPoolExecutor(4, thread_name_prefix="embed-query")
        self._closed = threading.Event()

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleProvider(model={self.model!r}, dimensions={self._dimensions}, "
            f"base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"
        )

    @property
    def model_id(self) -> str:
        """The model name (stored with the vectors; the API key is not)."""
        return self.model

    @property
    def dimensions(self) -> int:
        """The vector size every response must have."""
        return self._dimensions

    def close(self) -> None:
        """Close the connection pool and the worker threads."""
        self._closed.set()
        self._bulk.shutdown(wait=True, cancel_futures=True)
        self._queries.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def __enter__(self) -> OpenAICompatibleProvider:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- embedding ------------------------------------------------------------------------

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Embed documents in batches, at most ``max_in_flight`` requests at a time."""
        out = np.empty((len(texts), self._dimensions), dtype=np.float32)
        if not texts:
            return out
        self._check_open()
        starts = list(range(0, len(texts), self.batch_size))
        pending: dict[Future[Vectors], int] = {}
        done_count = 0
        try:
            for start in starts:
                if len(pending) >= self.max_in_flight:
                    done_count += self._collect(pending, out, progress, done_count)
                batch = list(texts[start : start + self.batch_size])
                pending[self._bulk.submit(self._request_split, batch)] = start
            while pending:
                done_count += self._collect(pending, out, progress, done_count)
        finally:
            for future in pending:
                future.cancel()
        return out

    def _collect(
        self,
        pending: dict[Future[Vectors], int],
        out: Vectors,
        progress: ProgressCallback | None,
        done_count: int,
    ) -> int:
        """Wait for at least one request; store its rows; return how many texts finished."""
        finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
        count = 0
        for future in finished:
            start = pending.pop(future)
            rows = future.result()  # raises the request's EmbeddingError
            out[start : start + rows.shape[0]] = rows
            count += rows.shape[0]
        if progress is not None:
            progress(done_count + count)
        return count

    def embed_query(self, text: str) -> Vectors:
        """Embed one query (``query_prefix`` + ``text``) within ``query_timeout_s``."""
        self._check_open()
        deadline = self.query_timeout_s
        # the socket timeout is a backstop; the deadline itself is the wait below
        future = self._queries.submit(self._request, [self.query_prefix + text], 2 * deadline)
        try:
            rows = future.result(timeout=deadline)
        except FutureTimeout:
            future.cancel()
            raise EmbeddingError(
                f"query embedding from {self.base_url} took longer than {deadline:g} s"
            ) from None
        vector: Vectors = rows[0]
        return vector

    # -- HTTP -----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed.is_set():
            raise EmbeddingError("the openai embedding provider is closed")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _request_split(self, texts: list[str]) -> Vectors:
        """One document batch; halves of it, recursively, while the server says too large."""
        try:
            return self._request(texts, None)
        except _TooLarge:
            if len(texts) == 1:
                raise EmbeddingError(
                    f"{self.base_url}/embeddings refused a single text as too large (HTTP 413)"
                ) from None
        half = len(texts) // 2
        return np.concatenate(
            [self._request_split(texts[:half]), self._request_split(texts[half:])]
        )

    def _request(self, texts: list[str], timeout: float | None) -> Vectors:
        payload: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.request_dimensions:
            payload["dimensions"] = self._dimensions
        url = f"{self.base_url}/embeddings"
        try:
            response = self._client.post(
                f"{self._endpoint}/embeddings",
                json=payload,
                headers=self._headers(),
                auth=self._auth or httpx.USE_CLIENT_DEFAULT,
                timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.TimeoutException:
            raise EmbeddingError(f"embedding request to {url} timed out") from None
        except httpx.HTTPError as exc:
            raise EmbeddingError(
                f"embedding request to {url} failed: {type(exc).__name__}"
            ) from None
        if response.status_code == 413:
            raise _TooLarge()
        if response.status_code >= 400:
            raise EmbeddingError(
                f"embedding request to {url} answered HTTP {response.status_code}: "
                f"{response.text[:200]!r}"
            )
        return self._parse(response, len(texts))

    def _parse(self, response: httpx.Response, expected: int) -> Vectors:
        try:
            body = response.json()
            items = sorted(body["data"], key=lambda item: int(item.get("index", 0)))
            rows = [item["embedding"] for item in items]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingError(f"malformed embeddings response: {exc!r}") from None
        if len(rows) != expected:
            raise EmbeddingError(f"asked for {expected} embeddings, got {len(rows)}")
        sizes = {len(row) if isinstance(row, list) else -1 for row in rows}
        if sizes != {self._dimensions}:
            got = ", ".join(str(s) for s in sorted(sizes))
            raise EmbeddingError(
                f"model {self.model!r} returned vectors of {got} dimensions; {self._dimensions} "
                "are required, so the response was rejected"
            )
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (ValueError, TypeError) as exc:
            raise EmbeddingError(f"embeddings are not numbers: {exc}") from None
        if not np.isfinite(matrix).all():
            raise EmbeddingError("embeddings contain NaN or infinite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return np.ascontiguousarray(matrix / np.maximum(norms, 1e-12), dtype=np.float32)


class _TooLarge(Exception):
    """The server answered 413: the batch is larger than it takes."""
