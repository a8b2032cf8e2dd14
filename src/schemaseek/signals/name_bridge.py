"""The name bridge: question words a catalog never uses, led to the words its names do use.

BM25 cannot match "earnings" to a column ``salary``, and a table's one vector rarely carries a
single column's word strongly. The bridge takes the question's content words (three letters
or more, alphabetic, not stop words) whose stem no table or column name of the index holds,
finds for each the nearest words of the index's own *name vocabulary* by the embedding
model's cosine (the ``bridge_neighbours`` nearest at or above ``bridge_threshold``), and the
pipeline searches the words found as one more keyword list, ``bridge``.

The vocabulary holds the words of SQL documents' names and of their members' names (columns),
with how many documents hold each (so a refresh can add and remove documents), and one unit
vector per word from the provider's document side. GraphQL documents add nothing: there the
bridge measured worse (bench/QUALITY.md, "The schema's own words for the question's").

Files of a snapshot generation (written only when the index has a vocabulary):

* ``name_vocabulary.json`` — ``{"words": [...], "counts": [...]}``, words sorted;
* ``name_vectors.npy`` — float32, one unit row per word, in the same order.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from cachetools import LRUCache

from schemaseek.arrays import FileFormatError, npy_bytes, npy_view
from schemaseek.documents import SQL_KINDS, Document
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.signals.vector_kernels import nearest_rows
from schemaseek.text import STOP_WORDS, split_words, stem

__all__ = [
    "NAME_VECTORS",
    "NAME_VOCABULARY",
    "NameVocabulary",
    "WordVectors",
    "content_words",
    "name_words",
]

NAME_VOCABULARY = "name_vocabulary.json"
NAME_VECTORS = "name_vectors.npy"

Matrix = npt.NDArray[np.float32]


def _content(word: str) -> bool:
    return len(word) >= 3 and word.isalpha() and word not in STOP_WORDS


def content_words(question: str) -> list[str]:
    """The question's content words (three letters or more, no stop word), first occurrence
    order: what the bridge and the coverage weight (:mod:`schemaseek.query.coverage`) count."""
    return [w for w in dict.fromkeys(split_words(question)) if _content(w)]


def name_words(doc: Document) -> set[str]:
    """The content words of a SQL document's name and of its members' names (a member reads
    ``"CustomerID integer — …"`` or ``"a.x → b.y"``: its first token is the name); none for
    other kinds."""
    if doc.kind not in SQL_KINDS:
        return set()
    names = [doc.name, *(m.split(" ")[0].split(":")[0] for m in doc.members)]
    return {w for n in names for w in split_words(n) if _content(w)}


def _unit_rows(rows: npt.ArrayLike) -> Matrix:
    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Matrix = matrix / np.maximum(norms, 1e-12)
    return unit


class WordVectors:
    """Unit vectors of single words. A vocabulary's words are embedded as documents, in the
    provider's batches (:meth:`embed_all`); a question's words are question text and go
    through ``questions``' ``embed_query`` (the index's cached query embedder, and in the CLI
    and MCP the persistent question store), behind an LRU of ``maxsize`` words (a question's
    words recur across questions). Thread-safe."""

    def __init__(
        self,
        provider: EmbeddingProvider,
        questions: EmbeddingProvider | None = None,
        maxsize: int = 4096,
    ) -> None:
        self.provider = provider
        self.questions = questions or provider
        self._cache: LRUCache[str, Matrix] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def cached(self, words: Sequence[str]) -> Matrix:
        """One unit row per word; the words not cached are embedded one by one."""
        with self._lock:
            held = {w: self._cache[w] for w in words if w in self._cache}
        missing = [w for w in dict.fromkeys(words) if w not in held]
        if missing:
            fresh = _unit_rows([self.questions.embed_query(w) for w in missing])
            with self._lock:
                for word, row in zip(missing, fresh, strict=True):
                    self._cache[word] = row
                    held[word] = row
        return np.stack([held[w] for w in words]) if words else self.empty()

    def embed_all(self, words: Sequence[str]) -> Matrix:
        """One unit row per word, embedded in the provider's batches (nothing cached)."""
        return _unit_rows(self.provider.embed(list(words))) if words else self.empty()

    def empty(self) -> Matrix:
        return np.zeros((0, self.provider.dimensions), dtype=np.float32)


@dataclass(frozen=True, slots=True)
class NameVocabulary:
    """The name words of an index's SQL documents, how many documents hold each, one unit
    vector per word (rows in ``words`` order) and the words' stems."""

    counts: Mapping[str, int]
    words: tuple[str, ...]
    vectors: Matrix
    stems: frozenset[str]

    @classmethod
    def build(
        cls,
        documents: Iterable[Document],
        embedder: WordVectors,
        known: Sequence[NameVocabulary] = (),
    ) -> NameVocabulary | None:
        """The vocabulary of ``documents`` (``None`` when they hold no SQL name word); a word's
        vector is taken from the first of ``known`` that holds it, or embedded."""
        counts: Counter[str] = Counter()
        for doc in documents:
            counts.update(name_words(doc))
        return cls._of(counts, embedder, known)

    def updated(
        self, removed: Iterable[Document], added: Iterable[Document], embedder: WordVectors
    ) -> NameVocabulary | None:
        """This vocabulary without ``removed``'s words and with ``added``'s (a replaced
        document is in both: its old version removed, its new one added); only words new to
        the vocabulary are embedded."""
        counts: Counter[str] = Counter(self.counts)
        for doc in removed:
            counts.subtract(name_words(doc))
        for doc in added:
            counts.update(name_words(doc))
        return self._of(counts, embedder, (self,))

    @classmethod
    def _of(
        cls, counts: Counter[str], embedder: WordVectors, known: Sequence[NameVocabulary]
    ) -> NameVocabulary | None:
        kept = {w: c for w, c in counts.items() if c > 0}
        if not kept:
            return None
        words = tuple(sorted(kept))
        rows: dict[str, Matrix] = {}
        for vocabulary in known:
            positions = {w: i for i, w in enumerate(vocabulary.words)}
            for word in words:
                if word not in rows and word in positions:
                    rows[word] = vocabulary.vectors[positions[word]]
        todo = [w for w in words if w not in rows]
        rows.update(zip(todo, embedder.embed_all(todo), strict=True))
        vectors = np.stack([rows[w] for w in words]).astype(np.float32, copy=False)
        return cls(kept, words, vectors, frozenset(stem(w) for w in words))

    def unknown(self, question: str) -> list[str]:
        """The question's content words (first occurrence order) whose stem no name holds."""
        return [w for w in content_words(question) if stem(w) not in self.stems]

    def nearest(
        self, vectors: Matrix, *, neighbours: int, threshold: float
    ) -> list[tuple[int, str]]:
        """For each row of ``vectors`` (a question word), its ``neighbours`` nearest name
        words at cosine ``threshold`` or more, as ``(row, name word)``, nearest first."""
        found: list[tuple[int, str]] = []
        if not len(vectors) or not self.words:
            return found
        # faiss's exhaustive kernel on one thread: reading the vocabulary is what costs
        # (memory-bound; about 0.9 ms CPU for three words against 7,000, bench/RESULTS.md)
        count = min(neighbours, len(self.words))
        scores, best = nearest_rows(vectors, self.vectors, count)
        for row in range(len(vectors)):
            for score, i in zip(scores[row], best[row], strict=True):
                if i >= 0 and score >= threshold:
                    found.append((row, self.words[int(i)]))
        return found

    def to_files(self) -> dict[str, bytes]:
        """The vocabulary's snapshot files (module docstring)."""
        listed = {"words": list(self.words), "counts": [self.counts[w] for w in self.words]}
        return {
            NAME_VOCABULARY: json.dumps(listed, ensure_ascii=False).encode(),
            NAME_VECTORS: npy_bytes(np.asarray(self.vectors, dtype="<f4")),
        }

    @classmethod
    def from_files(cls, files: Mapping[str, memoryview], dimensions: int) -> NameVocabulary | None:
        """The vocabulary saved in ``files`` (``None`` when a generation has none).

        Raises:
            FileFormatError: the files are malformed or disagree with each other or with
                ``dimensions``.
        """
        if NAME_VOCABULARY not in files:
            return None
        try:
            listed = json.loads(bytes(files[NAME_VOCABULARY]))
            words = tuple(str(w) for w in listed["words"])
            counts = [int(c) for c in listed["counts"]]
            vectors = npy_view(files[NAME_VECTORS], "<f4", 2)
        except (KeyError, ValueError, TypeError) as exc:
            raise FileFormatError(f"the name vocabulary files are malformed: {exc!r}") from None
        if len(counts) != len(words) or vectors.shape != (len(words), dimensions):
            raise FileFormatError(
                f"the name vocabulary holds {len(words)} words, {len(counts)} counts and "
                f"vectors of shape {vectors.shape} (expected width {dimensions})"
            )
        return cls(
            dict(zip(words, counts, strict=True)),
            words,
            np.asarray(vectors),
            frozenset(stem(w) for w in words),
        )
