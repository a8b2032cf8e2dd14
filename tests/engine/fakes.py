"""Small, fast fakes for lifecycle tests: a hash-based provider, a clock, source builders."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

import numpy as np

from schemaseek.documents import DocKind, Document, Edge
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.sources.base import SourceSchema, stable_hash


class HashProvider:
    """Deterministic unit vectors from SHA-256 of the text; counts calls; can fail on demand.

    Words shared between texts make vectors closer (each word adds its own hashed direction),
    so searches over these vectors are meaningful enough for ranking tests.
    """

    provider_name = "fake-hash"

    def __init__(self, dimensions: int = 16, model_id: str = "fake-hash-model") -> None:
        self._dimensions = dimensions
        self._model_id = model_id
        self.query_prefix = ""
        self._lock = threading.Lock()
        self.embed_calls = 0
        self.embedded_texts = 0
        self.embedded_words = 0
        """Of ``embedded_texts``, the single words (the name bridge's; documents never are)."""
        self.query_calls = 0
        self.fail = False
        self.block: threading.Event | None = None

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def vector(self, text: str) -> Vectors:
        total = np.zeros(self._dimensions, dtype=np.float64)
        for word in text.lower().split() or [""]:
            digest = hashlib.sha256(word.encode()).digest()
            seed = int.from_bytes(digest[:8], "little")
            total += np.random.default_rng(seed).standard_normal(self._dimensions)
        norm = np.linalg.norm(total) or 1.0
        return (total / norm).astype(np.float32)

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        with self._lock:
            self.embed_calls += 1
            self.embedded_texts += len(texts)
            self.embedded_words += sum(len(t.split()) == 1 for t in texts)
        if self.block is not None:
            self.block.wait()
        if self.fail:
            raise RuntimeError("provider down (test)")
        if progress is not None:
            progress(len(texts))
        if not texts:
            return np.empty((0, self._dimensions), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            self.query_calls += 1
        if self.fail:
            raise RuntimeError("provider down (test)")
        return self.vector(text)

    def reset(self) -> None:
        with self._lock:
            self.embed_calls = self.embedded_texts = self.embedded_words = self.query_calls = 0

    @property
    def embedded_documents(self) -> int:
        """Document texts embedded (``embedded_texts`` less the name bridge's words)."""
        with self._lock:
            return self.embedded_texts - self.embedded_words


class FakeClock:
    """A monotonic clock the test advances by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


WORDS = [
    "customer",
    "order",
    "invoice",
    "payment",
    "product",
    "shipment",
    "warehouse",
    "supplier",
    "contract",
    "royalty",
    "artist",
    "release",
    "album",
    "track",
    "label",
    "region",
    "store",
    "employee",
    "salary",
    "account",
    "ledger",
    "budget",
    "campaign",
    "click",
    "session",
    "device",
    "country",
    "currency",
    "rate",
    "tax",
    "refund",
    "return",
    "review",
    "rating",
]


def table(
    name: str, columns: Sequence[str], description: str = "", source: str = "shop"
) -> Document:
    return Document(
        id=f"{source}.{name}",
        kind=DocKind.SQL_TABLE,
        source=source,
        name=name,
        description=description,
        members=tuple(f"{c} TEXT" for c in columns),
        data={"columns": [{"name": c, "type": "TEXT"} for c in columns]},
    )


def catalog(count: int, source: str = "shop", salt: str = "") -> SourceSchema:
    """``count`` synthetic tables with words drawn deterministically from :data:`WORDS`."""
    docs = []
    for i in range(count):
        a, b, c = (
            WORDS[i % len(WORDS)],
            WORDS[(i * 7 + 3) % len(WORDS)],
            WORDS[(i * 13 + 5) % len(WORDS)],
        )
        docs.append(
            table(
                f"{a}_{b}_{i}",
                [f"{c}_id", f"{a}_amount", "created_at"],
                f"{a} {b} {c} {salt}".strip(),
                source,
            )
        )
    return schema_of(source, docs)


def schema_of(source: str, docs: list[Document], edges: Sequence[Edge] = ()) -> SourceSchema:
    return SourceSchema(
        name=source,
        kind="sql",
        documents=docs,
        edges=list(edges),
        schema_hash=stable_hash(
            [d.content_hash() for d in docs] + [f"{e.source}>{e.target}" for e in edges]
        ),
    )
