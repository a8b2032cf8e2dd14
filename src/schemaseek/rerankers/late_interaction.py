"""Late-interaction (ColBERT-style MaxSim) reranking over the embedding model's token vectors.

No extra model: the question and each candidate are run through the embedding model and the
rows of its ``last_hidden_state`` are kept per token (special tokens and padding dropped),
L2-normalised. A candidate's MaxSim score is the mean, over the question's tokens, of the best
cosine with any of the candidate's tokens:

    maxsim(q, d) = (1 / |q|) · Σ_{i ∈ q} max_{j ∈ d} cos(q_i, d_j)

The score is mixed with the fusion's verdict: ``alpha · maxsim' + (1 - alpha) · prior``, where
``maxsim'`` is MaxSim min-max normalised over the reranked candidates and ``prior`` is each
candidate's fused score relative to the best one (the pipeline passes them), or, without fused
scores, ``r``, going linearly from 1 (first fused candidate) to 0 (last reranked one).

Candidate token vectors are computed on demand (the missing candidates of a question,
length-sorted, a few per model run on the provider's single-threaded query session) and kept in
a least-recently-used cache keyed by the document's content hash, stored as float16 and bounded
both in documents and in bytes. :meth:`LateInteractionReranker.prepare` fills it in advance.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from schemaseek.documents import Document
from schemaseek.errors import ConfigError
from schemaseek.rerankers.base import Ranked, head_size, reorder

Matrix = npt.NDArray[np.float32]
_Stored = npt.NDArray[np.float16]

DEFAULT_CACHE_DOCUMENTS = 4096
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
QUERY_CACHE = 256
"""Questions whose token vectors are kept (float32, exactly as computed: a question of 20
tokens takes 30 KB)."""
_EMPTY: _Stored = np.zeros((0, 0), dtype=np.float16)
_SINGLE_THREAD_WORK = 262_144
"""Most multiply-adds (M·N·K) per matrix product in :func:`maxsim`: OpenBLAS runs products up to
65,536 × 4 on one thread. A threaded product over 1,250 document tokens measured 8-12 ms on a
busy 2-core machine (50 ms for long questions), blocks of this size 0.2-0.5 ms."""


class TokenVectorProvider(Protocol):
    """What late interaction needs from an embedding model (``OnnxEmbeddingProvider`` has it)."""

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Matrix]: ...


@dataclass(frozen=True, slots=True)
class TokenCacheStats:
    """Counters of the document token-vector cache."""

    hits: int
    misses: int
    model_runs: int
    documents: int
    bytes: int


class LateInteractionReranker:
    """Re-scores candidates by MaxSim over the embedding model's token vectors.

    Args:
        provider: the embedding model (default: a new local all-MiniLM-L6-v2, loaded lazily).
        alpha: weight of MaxSim against the fused scores (or order); ``1.0`` ranks by MaxSim
            alone.
        max_candidates: score only this many leading candidates (``None``: all); the rest keep
            the fused order below them. The settings' defaults (alpha 0.33, 10 candidates) were
            swept on BIRD-dev and Spider-dev (bench/QUALITY.md).
        batch_size: most candidate texts per model run (length-sorted first).
        cache_documents: most documents whose token vectors are cached.
        cache_bytes: most bytes of cached token vectors (float16).
        text: the text of a document that is encoded (default :func:`names_text`).
    """

    def __init__(
        self,
        provider: TokenVectorProvider | None = None,
        *,
        alpha: float = 0.3,
        max_candidates: int | None = 5,
        batch_size: int = 16,
        cache_documents: int = DEFAULT_CACHE_DOCUMENTS,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        text: Callable[[Document], str] | None = None,
    ) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise ConfigError(f"alpha must be between 0 and 1, not {alpha}")
        if max_candidates is not None and max_candidates < 1:
            raise ConfigError("max_candidates must be >= 1 (or None for all)")
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        if cache_documents < 0 or cache_bytes < 0:
            raise ConfigError("cache_documents and cache_bytes must be >= 0")
        if provider is None:
            from schemaseek.embedding.onnx import OnnxEmbeddingProvider

            provider = OnnxEmbeddingProvider()
        self.provider = provider
        self.alpha = alpha
        self.max_candidates = max_candidates
        self.batch_size = batch_size
        self.cache_documents = cache_documents
        self.cache_bytes = cache_bytes
        self._text = text or names_text
        self._cache: OrderedDict[str, _Stored] = OrderedDict()
        self._queries: OrderedDict[str, Matrix] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = self._runs = 0
        self._lock = threading.Lock()

    @property
    def stats(self) -> TokenCacheStats:
        """Cache hits and misses, model runs for documents, and what the cache holds."""
        with self._lock:
            return TokenCacheStats(
                self._hits, self._misses, self._runs, len(self._cache), self._bytes
            )

    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked:
        """Candidates re-sorted by MaxSim with ``query``, mixed (``alpha``) with the fused
        scores when given, else with the fused order (:func:`mix_with_fused`)."""
        head = head_size(candidates, self.max_candidates)
        if head == 0:
            return []
        query_tokens = self._query_tokens(query)
        documents = self._document_tokens(candidates[:head])
        scores = maxsim(query_tokens, documents)
        prior = None if fused is None else np.asarray(fused[:head], dtype=np.float32)
        mixed = mix_with_fused(scores, self.alpha, prior)
        best = max(fused[:head], default=0.0) if fused is not None else 0.0
        if fused is None or best <= 0 or mixed is scores:
            return reorder(candidates, mixed.tolist())
        # back on the fused scale (results of several indexes are merged by score); the rest
        # keep their fused margins, with no MaxSim evidence
        tail = [(1.0 - self.alpha) * score for score in fused[head:]]
        return reorder(candidates, (mixed * best).tolist(), tail)

    def prepare(self, documents: Sequence[Document]) -> int:
        """Fill the cache ahead of queries (on the bulk session); returns how many documents
        were encoded. Documents already cached, or beyond the cache's capacity, are skipped."""
        with self._lock:
            room = self.cache_documents - len(self._cache)
            todo = [d for d in documents if d.content_hash() not in self._cache]
        todo = todo[: max(room, 0)]
        if todo:
            self._encode(todo, bulk=True)
        return len(todo)

    def clear(self) -> None:
        """Drop every cached document and question."""
        with self._lock:
            self._cache.clear()
            self._queries.clear()
            self._bytes = 0

    # -- internals ---------------------------------------------------------------------------

    def _query_tokens(self, query: str) -> Matrix:
        """The question's normalised token vectors, from the model once per distinct question
        (the last :data:`QUERY_CACHE` are kept): a repeated question, whose vector the query
        cache already holds, makes no model run at all."""
        with self._lock:
            stored = self._queries.get(query)
            if stored is not None:
                self._queries.move_to_end(query)
                return stored
        tokens = _normalise(self.provider.token_vectors([query], query=True)[0])
        with self._lock:
            self._queries[query] = tokens
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return tokens

    def _document_tokens(self, documents: Sequence[Document]) -> list[_Stored]:
        keys = [doc.content_hash() for doc in documents]
        found: dict[str, _Stored] = {}
        with self._lock:
            for key in keys:
                stored = self._cache.get(key)
                if stored is not None:
                    self._cache.move_to_end(key)
                    found[key] = stored
            self._hits += len(found)
        todo = {key: doc for key, doc in zip(keys, documents, strict=True) if key not in found}
        if todo:
            found.update(zip(todo, self._encode(list(todo.values()), bulk=False), strict=True))
        return [found[key] for key in keys]

    def _encode(self, documents: Sequence[Document], *, bulk: bool) -> list[_Stored]:
        """Normalised float16 token vectors of ``documents`` (stored in the cache), in input
        order: shortest text first, ``batch_size`` texts per model run, so that short texts
        are not padded to the longest candidate (one padded run of 40 demo documents measured
        3× slower)."""
        texts = [self._text(d) for d in documents]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[_Stored] = [_EMPTY] * len(texts)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            raw = self.provider.token_vectors([texts[i] for i in rows], bulk=bulk)
            with self._lock:
                self._runs += 1
                self._misses += len(rows)
                for row, vectors in zip(rows, raw, strict=True):
                    stored = _normalise(vectors).astype(np.float16)
                    self._store(documents[row].content_hash(), stored)
                    out[row] = stored
        return out

    def _store(self, key: str, stored: _Stored) -> None:
        if self.cache_documents == 0 or stored.nbytes > self.cache_bytes:
            return
        previous = self._cache.pop(key, None)
        if previous is not None:
            self._bytes -= previous.nbytes
        self._cache[key] = stored
        self._bytes += stored.nbytes
        while len(self._cache) > self.cache_documents or self._bytes > self.cache_bytes:
            _, evicted = self._cache.popitem(last=False)
            self._bytes -= evicted.nbytes


def maxsim(query: Matrix, documents: Sequence[npt.NDArray[np.floating[Any]]]) -> Matrix:
    """Mean over ``query``'s rows of the best dot product with any row of each document
    (rows assumed L2-normalised, so dot = cosine), computed in float32 whatever the documents'
    storage type. A document without tokens scores 0."""
    out = np.zeros(len(documents), dtype=np.float32)
    if len(query) == 0:
        return out
    sizes = np.fromiter((len(d) for d in documents), dtype=np.int64, count=len(documents))
    present = np.flatnonzero(sizes)
    if len(present) == 0:
        return out
    stacked = np.concatenate([documents[int(i)] for i in present], axis=0).astype(np.float32)
    sims = np.empty((len(stacked), len(query)), dtype=np.float32)  # (document tokens, query)
    rows = max(1, _SINGLE_THREAD_WORK // (query.shape[0] * query.shape[1]))
    for start in range(0, len(stacked), rows):
        np.matmul(stacked[start : start + rows], query.T, out=sims[start : start + rows])
    starts = np.concatenate(([0], np.cumsum(sizes[present])[:-1]))
    best = np.maximum.reduceat(sims, starts, axis=0)  # (documents present, query tokens)
    out[present] = best.mean(axis=1)
    return out


def mix_with_fused(scores: Matrix, alpha: float, fused: Matrix | None = None) -> Matrix:
    """``alpha · minmax(scores) + (1 - alpha) · prior``. The prior is each candidate's fused
    score relative to the best one when ``fused`` is given (margins between candidates
    survive), else ``r``, falling linearly from 1 (first fused candidate) to 0 (last);
    ``alpha = 1`` returns ``scores`` unchanged."""
    if alpha >= 1.0 or len(scores) < 2:
        return scores
    low, high = float(scores.min()), float(scores.max())
    spread = high - low
    sim = (scores - low) / spread if spread > 0 else np.zeros_like(scores)
    best = float(fused.max()) if fused is not None and len(fused) else 0.0
    if fused is not None and best > 0:
        prior = fused / best
    else:
        prior = 1.0 - np.arange(len(scores), dtype=np.float32) / (len(scores) - 1)
    mixed: Matrix = (alpha * sim + (1.0 - alpha) * prior).astype(np.float32)
    return mixed


def names_text(doc: Document) -> str:
    """What late interaction reads of a document: its kind and name, its description and the
    names of its members (``"customer_id INTEGER — ..."`` → ``customer_id``). Column types and
    member descriptions are left out: type tokens (``VARCHAR(16777216)``) match any question
    equally, and long texts win MaxSim by having more tokens to choose from."""
    parts = [f"{doc.kind_label()} {doc.name}"]
    if doc.description:
        parts.append(doc.description)
    names = [m.split(" ", 1)[0].rstrip(":") for m in doc.members if m.strip()]
    if names:
        parts.append("fields: " + ", ".join(names))
    return ". ".join(parts)


def _normalise(vectors: Matrix) -> Matrix:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised: Matrix = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised
