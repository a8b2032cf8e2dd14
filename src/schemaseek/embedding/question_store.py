"""What the model computed for questions, kept on disk: a repeated question makes no model run.

The on-disk document cache (:mod:`~schemaseek.embedding.disk_cache`) keeps document vectors;
a command-line search or an MCP server started again still ran the model for its question (the
query vector), and the late-interaction reranker for the question's and the candidates' token
vectors — ~0.5 s CPU of a warm two-source demo search, with the model's session created only
for that. :class:`QuestionStore` keeps those arrays in one SQLite file per model
(``<directory>/<model slug>/questions.sqlite3``): a lookup reads one row, so a large store
costs a warm start nothing, and SQLite's locking lets several processes (one MCP server per
agent session) share it. The store is bounded in bytes (oldest rows go first) and best-effort:
a store that cannot be opened or written is logged once and then skipped, never failing a
search.

:func:`persist_questions` wraps a provider: ``embed_query`` is read from the store or computed
and stored; when the wrapped chain has ``token_vectors`` (the local ONNX model), the wrapper has
them too, stored as float16 — and returned rounded the same way when just computed, so a cold
and a warm run rank identically.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.embedding.base import EmbeddingProvider, ProviderWrapper, Vectors
from schemaseek.embedding.disk_cache import model_slug

__all__ = ["QuestionStore", "find_token_vectors", "persist_questions"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_PRUNE_EVERY = 64
"""Writes between two checks of the store's size."""
_DTYPES = {"float32": np.float32, "float16": np.float16}
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS arrays (key BLOB PRIMARY KEY, dtype TEXT NOT NULL, "
    "rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB NOT NULL, stored REAL NOT NULL)"
)


class QuestionStore:
    """Arrays by ``(kind, text)`` for one model, in SQLite (module docstring).

    Args:
        directory: the cache root (the model's folder is created on the first write).
        model_id: namespaces the file and every key.
        max_bytes: most bytes of array data kept; beyond it the oldest rows are deleted
            until three quarters remain.
    """

    def __init__(
        self, directory: str | Path, model_id: str, *, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.path = Path(directory) / model_slug(model_id) / "questions.sqlite3"
        self.model_id = model_id
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._broken = False
        self._writes = 0

    def get(self, kind: str, text: str) -> npt.NDArray[Any] | None:
        """The array stored for ``text`` under ``kind``, or None."""
        with self._lock:
            connection = self._connect(create=False)
            if connection is None:
                return None
            try:
                row = connection.execute(
                    "SELECT dtype, rows, cols, data FROM arrays WHERE key = ?",
                    (self._key(kind, text),),
                ).fetchone()
            except sqlite3.Error as exc:
                self._give_up("read", exc)
                return None
        if row is None:
            return None
        dtype, rows, cols, data = row
        if dtype not in _DTYPES or len(data) != rows * cols * np.dtype(dtype).itemsize:
            return None
        array = np.frombuffer(data, dtype=_DTYPES[dtype]).reshape(rows, cols)
        return array if np.isfinite(array).all() else None

    def put(self, kind: str, text: str, array: npt.NDArray[Any]) -> None:
        """Store ``array`` (one or two dimensions, float16 or float32) for ``text``."""
        matrix = np.atleast_2d(array)
        if matrix.ndim != 2 or matrix.dtype.name not in _DTYPES:
            raise ValueError(f"cannot store an array of {matrix.dtype} {matrix.shape}")
        row = (
            self._key(kind, text), matrix.dtype.name, matrix.shape[0], matrix.shape[1],
            np.ascontiguousarray(matrix).tobytes(), time.time(),
        )  # fmt: skip
        with self._lock:
            connection = self._connect(create=True)
            if connection is None:
                return
            try:
                with connection:
                    connection.execute("INSERT OR REPLACE INTO arrays VALUES (?,?,?,?,?,?)", row)
                self._writes += 1
                if self._writes % _PRUNE_EVERY == 1:
                    self._prune(connection)
            except sqlite3.Error as exc:
                self._give_up("write", exc)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # -- internals ---------------------------------------------------------------------------

    def _key(self, kind: str, text: str) -> bytes:
        return hashlib.sha256(f"{self.model_id}\x00{kind}\x00{text}".encode()).digest()

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken:
            return self._connection
        if not create and not self.path.is_file():
            return None  # nothing stored yet: a read creates no file
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            self._give_up("open", exc)
            return None
        self._connection = connection
        return connection

    def _prune(self, connection: sqlite3.Connection) -> None:
        sizes = "SELECT coalesce(sum(length(data)), 0) FROM arrays"
        (total,) = connection.execute(sizes).fetchone()
        if total <= self.max_bytes:
            return
        keep, dropped = self.max_bytes * 3 // 4, 0
        rows = connection.execute("SELECT key, length(data) FROM arrays ORDER BY stored").fetchall()
        doomed = []
        for key, size in rows:
            if total - dropped <= keep:
                break
            doomed.append((key,))
            dropped += size
        with connection:
            connection.executemany("DELETE FROM arrays WHERE key = ?", doomed)

    def _give_up(self, what: str, exc: BaseException) -> None:
        logger.warning(
            "question store %s: cannot %s (%s); going on without it", self.path, what, exc
        )
        self._broken = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class PersistentQuestions(ProviderWrapper):
    """``embed_query`` through a :class:`QuestionStore`; ``embed`` passes through.

    Attributes:
        model_calls: calls that reached the wrapped model for a question or its candidates.
    """

    def __init__(self, provider: EmbeddingProvider, store: QuestionStore) -> None:
        super().__init__(provider)
        self.store = store
        self.model_calls = 0
        self._count = threading.Lock()

    def embed_query(self, text: str) -> Vectors:
        stored = self.store.get("query", text)
        if stored is not None and stored.shape == (1, self.dimensions):
            vector: Vectors = stored[0].astype(np.float32)
            return vector
        self._counted()
        vector = np.asarray(self.provider.embed_query(text), dtype=np.float32)
        self.store.put("query", text, vector)
        return vector

    def _counted(self) -> None:
        with self._count:
            self.model_calls += 1


class PersistentTokenQuestions(PersistentQuestions):
    """:class:`PersistentQuestions` that also keeps token vectors (for late interaction)."""

    def __init__(self, provider: EmbeddingProvider, store: QuestionStore, tokens: Any) -> None:
        super().__init__(provider, store)
        self.tokens = tokens
        # a fused provider's token vectors are one of its models': their keys name that model
        source = getattr(tokens, "token_model_id", None)
        self._suffix = f":{source}" if source else ""

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Vectors]:
        """Each text's token vectors (float16 precision, as float32), from the store or from
        one run of the model for the texts it lacks."""
        kind = ("query-tokens" if query else "tokens") + self._suffix
        found: list[Vectors | None] = []
        for text in texts:
            stored = self.store.get(kind, text)
            found.append(stored.astype(np.float32) if stored is not None else None)
        missing = [i for i, vectors in enumerate(found) if vectors is None]
        if missing:
            self._counted()
            fresh = self.tokens.token_vectors([texts[i] for i in missing], query=query, bulk=bulk)
            for i, vectors in zip(missing, fresh, strict=True):
                rounded = np.asarray(vectors, dtype=np.float16)
                self.store.put(kind, texts[i], rounded)
                found[i] = rounded.astype(np.float32)
        return [vectors for vectors in found if vectors is not None]


def find_token_vectors(provider: object) -> Any | None:
    """The object with ``token_vectors`` in ``provider``'s chain of wrappers (each exposes the
    wrapped one as ``.provider``), or None."""
    current = provider
    for _ in range(8):
        if current is None:
            return None
        if callable(getattr(current, "token_vectors", None)):
            return current
        current = getattr(current, "provider", None)
    return None


def persist_questions(provider: EmbeddingProvider, directory: str | Path) -> PersistentQuestions:
    """``provider`` behind a :class:`QuestionStore` in ``directory``, with token vectors kept
    too when the chain can compute them."""
    store = QuestionStore(directory, provider.model_id)
    tokens = find_token_vectors(provider)
    if tokens is None:
        return PersistentQuestions(provider, store)
    return PersistentTokenQuestions(provider, store, tokens)
