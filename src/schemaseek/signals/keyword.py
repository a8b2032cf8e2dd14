"""BM25 keyword signal on an in-memory tantivy index.

Every document is indexed in four text fields (``name``: its name plus the last segments of
its id; ``description``, ``members``, ``context``) from text :func:`schemaseek.text.tokenize`
analysed; tantivy's ``whitespace`` tokenizer only splits it, so analysis is ours at both ends.
Queries are a ``BooleanQuery`` of ``should`` ``TermQuery`` clauses, one per (field, token), each
in a ``BoostQuery`` of the field weight; the query-string parser is never used.

Scoring is tantivy's BM25, which is hard-wired to k1 = 1.2, b = 0.75 and scores a term as
``idf · (k1 + 1) · tf / (tf + k1 · (1 − b + b · dl / avgdl))`` with
``idf = ln(1 + (N − n + 0.5) / (n + 0.5))``; field lengths are stored as one byte, exact up to
40 tokens. Tantivy's ``N``, ``n`` and average lengths still count deleted documents until a
segment merge purges them, and tantivy-py cannot force one; so once deletions (removals and
replacements) since the last rebuild exceed 5 % of the live documents, the index is rebuilt
from the analysed text kept per document (no re-tokenising), and scores stay those of a fresh
index to within that margin.

Prefix fallback: when the exact query finds fewer than ``prefix_min_results`` documents, each
query token of three or more characters is expanded to the indexed terms that start with it
(the shortest ``max_prefix_expansions`` of a sorted vocabulary, found with :mod:`bisect`), and
the query runs again with them at ``prefix_boost`` times the field weight: one ranked list of
comparable scores, exact matches normally on top.

Hits map back to ids through a signed integer fast field (no stored-document fetch: a top-40
search over 10K documents takes well under a millisecond), which deletion uses too (any id
length works; tantivy-py 0.27 silently fails to delete by an unsigned-integer term).

Document analysis lives in :mod:`schemaseek.signals.keyword_fields`; an index saves and
reopens itself with :meth:`KeywordIndex.to_files` / :meth:`KeywordIndex.from_files` (formats:
:mod:`schemaseek.signals.files`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import tantivy

from schemaseek.arrays import FileFormatError
from schemaseek.documents import Document
from schemaseek.errors import ConfigError
from schemaseek.signals import files as signal_files
from schemaseek.signals.coordination import TermStatistics
from schemaseek.signals.keyword_fields import (
    FIELDS,
    ID_SEGMENTS,
    MAX_TOKEN_BYTES,
    MIN_PREFIX_LENGTH,
    field_tokens,
    keep_tokens,
    prefix_extensions,
)
from schemaseek.signals.term_counts import TermCounts

__all__ = [
    "DEFAULT_FIELD_WEIGHTS",
    "FIELDS",
    "ID_SEGMENTS",
    "MAX_TOKEN_BYTES",
    "MIN_PREFIX_LENGTH",
    "STALE_REBUILD_FRACTION",
    "KeywordIndex",
    "field_tokens",
    "keep_tokens",
]

DEFAULT_FIELD_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "description": 1.5,
    "members": 1.0,
    "context": 1.0,
}
# Rebuild when deleted documents exceed this fraction of the live ones (see module doc).
STALE_REBUILD_FRACTION = 0.05
_WRITER_HEAP_BYTES = 32_000_000
_CLAUSE_CACHE_SIZE = 50_000  # query terms whose clauses are kept


class KeywordIndex:
    """Incremental BM25 index over schema documents with per-field boosts.

    Args:
        field_weights: boosts per field; given keys override :data:`DEFAULT_FIELD_WEIGHTS`.
            A weight of 0 leaves that field out of queries. Unknown fields or negative
            weights raise :class:`~schemaseek.errors.ConfigError`.
        prefix_min_results: run the prefix fallback when exact matching finds fewer hits.
        prefix_boost: factor applied to prefix expansions (on top of the field weight).
        max_prefix_expansions: most indexed terms one query token may expand to.

    Writes (``add``, ``remove``) are serialised by a lock; each call is one tantivy commit
    followed by a reader reload, so searches always see the latest call in full.
    """

    def __init__(
        self,
        field_weights: Mapping[str, float] | None = None,
        prefix_min_results: int = 5,
        *,
        prefix_boost: float = 0.5,
        max_prefix_expansions: int = 20,
    ) -> None:
        weights = dict(DEFAULT_FIELD_WEIGHTS)
        for name, weight in (field_weights or {}).items():
            if name not in DEFAULT_FIELD_WEIGHTS:
                raise ConfigError(f"unknown keyword field {name!r}; expected one of {FIELDS}")
            if weight < 0:
                raise ConfigError(f"keyword field weight for {name!r} must be >= 0: {weight}")
            weights[name] = float(weight)
        self.field_weights: dict[str, float] = weights
        self.prefix_min_results = prefix_min_results
        self.prefix_boost = prefix_boost
        self.max_prefix_expansions = max_prefix_expansions

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_integer_field("key", indexed=True, fast=True)
        for name in FIELDS:
            builder.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
        self._schema = builder.build()
        self._lock = threading.Lock()
        self._clause_cache: dict[tuple[str, bool], list[tuple[Any, Any]]] = {}
        self._next_key = 0
        # id -> (integer key, the four fields' analysed text joined by spaces)
        self._entries: dict[str, tuple[int, tuple[str, ...]]] = {}
        # entries restored by from_files read their texts lazily
        self._unloaded: set[str] = set()
        self._texts_of: Callable[[str], tuple[str, ...]] | None = None
        self._id_of: dict[int, str] = {}
        self._stale = 0  # deleted documents possibly still counted in tantivy's statistics
        self._counts = TermCounts()
        self._index = tantivy.Index(self._schema)
        self._writer = self._index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        self._searcher = self._index.searcher()

    # -- collection -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def add(self, docs: Sequence[Document]) -> None:
        """Index ``docs``, replacing documents with the same id (the last duplicate wins)."""
        latest = {doc.id: doc for doc in docs}
        if not latest:
            return
        with self._lock:
            touched: set[str] = set()
            for doc in latest.values():
                self._delete_locked(doc.id, touched)
                fields = field_tokens(doc)
                texts = tuple(" ".join(fields[name]) for name in FIELDS)
                key = self._next_key
                self._next_key += 1
                self._writer.add_document(self._tantivy_document(doc.id, key, texts))
                self._entries[doc.id] = (key, texts)
                self._id_of[key] = doc.id
                distinct = {t for tokens in fields.values() for t in tokens}
                self._counts.add(doc.id, distinct, touched)
            self._commit_locked(touched)

    def remove(self, ids: Iterable[str]) -> None:
        """Remove documents by id; unknown ids are ignored."""
        with self._lock:
            touched: set[str] = set()
            changed = False
            for doc_id in ids:
                changed |= self._delete_locked(doc_id, touched)
            if changed:
                self._commit_locked(touched)

    def _tantivy_document(self, doc_id: str, key: int, texts: tuple[str, ...]) -> Any:
        entry = tantivy.Document()
        entry.add_text("id", doc_id)
        entry.add_integer("key", key)
        for name, text in zip(FIELDS, texts, strict=True):
            if text:
                entry.add_text(name, text)
        return entry

    def _delete_locked(self, doc_id: str, touched: set[str]) -> bool:
        found = self._entries.pop(doc_id, None)
        if found is None:
            return False
        key, texts = found
        texts = self._resolve(doc_id, texts)
        del self._id_of[key]
        self._writer.delete_documents_by_term("key", key)
        self._stale += 1
        self._counts.remove(doc_id, _distinct_terms(texts), touched)
        return True

    def _resolve(self, doc_id: str, texts: tuple[str, ...]) -> tuple[str, ...]:
        """The analysed texts of an entry, read now if they were left unloaded."""
        if doc_id in self._unloaded and self._texts_of is not None:
            texts = self._texts_of(doc_id)
            self._unloaded.discard(doc_id)
            entry = self._entries.get(doc_id)
            if entry is not None:  # still indexed (a rebuild): keep the texts
                self._entries[doc_id] = (entry[0], texts)
        return texts

    def _commit_locked(self, touched: set[str]) -> None:
        """Commit (or rebuild, when deletions would skew the statistics) and reload the
        searcher, then sync the vocabulary for terms whose document count hit or left 0."""
        if self._stale > STALE_REBUILD_FRACTION * len(self._entries):
            self._rebuild_locked()
        else:
            self._writer.commit()
            self._index.reload()
            self._searcher = self._index.searcher()
        self._counts.sync_vocabulary(touched)

    def _rebuild_locked(self) -> None:
        """Re-index the live documents into a fresh tantivy index (tantivy-py cannot force
        the merge that would purge deleted documents from N, document frequencies and
        average lengths). No re-tokenisation: the analysed text is kept per document."""
        index = tantivy.Index(self._schema)
        writer = index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        for doc_id, (key, texts) in self._entries.items():
            texts = self._resolve(doc_id, texts)
            writer.add_document(self._tantivy_document(doc_id, key, texts))
        writer.commit()
        index.reload()
        self._index, self._writer = index, writer
        self._searcher = index.searcher()
        self._stale = 0

    # -- files ----------------------------------------------------------------------------

    def to_files(self) -> dict[str, bytes]:
        """The snapshot files of this index (:mod:`schemaseek.signals.files`): a fresh on-disk
        tantivy index of the live documents plus the bookkeeping, taken under the lock."""
        with self._lock:
            items = list(self._entries.items())
            entries = [
                (doc_id, key, self._resolve(doc_id, texts)) for doc_id, (key, texts) in items
            ]
            state = signal_files.KeywordState(
                ids=[doc_id for doc_id, _, _ in entries],
                keys=[key for _, key, _ in entries],
                term_refs=dict(self._counts.refs),
                next_key=self._next_key,
            )
        documents = (self._tantivy_document(doc_id, key, texts) for doc_id, key, texts in entries)
        analysed = (texts for _, _, texts in entries)
        return signal_files.encode_keyword(
            self._schema, documents, state, analysed, _WRITER_HEAP_BYTES
        )

    @classmethod
    def from_files(
        cls,
        files: Mapping[str, memoryview | bytes],
        *,
        field_weights: Mapping[str, float] | None = None,
        prefix_min_results: int = 5,
    ) -> KeywordIndex:
        """The index saved by :meth:`to_files`, opened on a private copy of its tantivy
        directory (removed with the index). Each document's analysed texts stay in ``files``
        until the document is next replaced or removed. The other arguments are the
        constructor's.

        Raises:
            FileFormatError: (a :class:`~schemaseek.errors.SnapshotError`) a missing or
                malformed file, or files that disagree.
        """
        state, reader = signal_files.decode_keyword(files)
        index = cls(field_weights, prefix_min_results)
        disk, workdir = signal_files.open_keyword_directory(index._schema, files)
        weakref.finalize(index, workdir.cleanup)
        index._index = disk
        index._writer = disk.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        index._searcher = disk.searcher()
        if index._searcher.num_docs != len(state.ids):
            raise FileFormatError("the keyword index holds another number of documents")
        position = {doc_id: i for i, doc_id in enumerate(state.ids)}
        pairs = list(zip(state.ids, state.keys, strict=True))
        index._entries = {doc_id: (key, ()) for doc_id, key in pairs}
        index._id_of = {key: doc_id for doc_id, key in pairs}
        index._unloaded = set(state.ids)
        index._texts_of = lambda doc_id: tuple(reader.get(position[doc_id]))
        index._counts = TermCounts(state.term_refs)
        index._next_key = state.next_key
        return index

    # -- search ---------------------------------------------------------------------------

    def search(self, tokens: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """Ids and BM25 scores of the best ``limit`` documents for analysed query ``tokens``.

        ``tokens`` must come from :func:`schemaseek.text.tokenize` (as the documents did).
        Repeated tokens count once. Falls back to prefix expansion when exact matches are
        fewer than ``min(prefix_min_results, limit)``.
        """
        terms = list(dict.fromkeys(keep_tokens(tokens)))
        if not terms or limit <= 0 or not self._entries:
            return []
        searcher = self._searcher
        hits = self._run(searcher, terms, [], limit)
        if len(hits) >= min(self.prefix_min_results, limit):
            return hits
        expansions = self.expand_prefixes(terms)
        if not expansions:
            return hits
        return self._run(searcher, terms, expansions, limit)

    def analysed_texts(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """The indexed tokens of each of ``doc_ids`` still in the index, space-separated."""
        with self._lock:
            found = {}
            for doc_id in doc_ids:
                entry = self._entries.get(doc_id)
                if entry is not None:
                    found[doc_id] = " ".join(self._resolve(doc_id, entry[1]))
            return found

    def term_statistics(self, terms: Iterable[str], doc_ids: Iterable[str]) -> TermStatistics:
        """Document frequencies of ``terms`` (any field), the number of documents, their mean
        number of distinct terms, and that number for each of ``doc_ids`` still indexed."""
        with self._lock:
            return self._counts.statistics(terms, doc_ids, len(self._entries), self._terms_of)

    def _terms_of(self, doc_id: str) -> set[str] | None:
        entry = self._entries.get(doc_id)
        if entry is None:
            return None
        return _distinct_terms(self._resolve(doc_id, entry[1]))

    def expand_prefixes(self, terms: Sequence[str]) -> list[str]:
        """Indexed terms that extend a query term of >= 3 characters (not the terms themselves).

        Per query term, the ``max_prefix_expansions`` shortest extensions (ties alphabetical)
        among the first few thousand in the vocabulary.
        """
        with self._lock:
            return prefix_extensions(self._counts.vocabulary, terms, self.max_prefix_expansions)

    def _term_clauses(self, term: str, *, expansion: bool) -> list[tuple[Any, Any]]:
        """The SHOULD clauses of one query term over every weighted field (boosted by the
        field weight, × ``prefix_boost`` for an expansion); built once per term and kept (a
        query names the schema's fields, not the index's contents, so commits never stale it)."""
        key = (term, expansion)
        found = self._clause_cache.get(key)
        if found is None:
            factor = self.prefix_boost if expansion else 1.0
            found = []
            for name, weight in self.field_weights.items():
                if weight <= 0:
                    continue
                query = tantivy.Query.term_query(self._schema, name, term, index_option="freq")
                if weight * factor != 1.0:
                    query = tantivy.Query.boost_query(query, weight * factor)
                found.append((tantivy.Occur.Should, query))
            if len(self._clause_cache) >= _CLAUSE_CACHE_SIZE:
                self._clause_cache.clear()
            self._clause_cache[key] = found
        return found

    def _run(
        self,
        searcher: tantivy.Searcher,
        terms: Sequence[str],
        expansions: Sequence[str],
        limit: int,
    ) -> list[tuple[str, float]]:
        clauses = [c for term in terms for c in self._term_clauses(term, expansion=False)]
        clauses += [c for term in expansions for c in self._term_clauses(term, expansion=True)]
        if not clauses:
            return []
        result = searcher.search(tantivy.Query.boolean_query(clauses), limit, count=False)
        if not result.hits:
            return []
        keys = searcher.fast_field_values("key", [address for _, address in result.hits])
        id_of = self._id_of
        out: list[tuple[str, float]] = []
        for (score, _), key in zip(result.hits, keys, strict=True):
            doc_id = id_of.get(key) if isinstance(key, int) else None
            if doc_id is not None:  # a concurrent write may have replaced it since
                out.append((doc_id, float(score)))
        return out


def _distinct_terms(texts: tuple[str, ...]) -> set[str]:
    """The distinct terms of a document's analysed field texts."""
    return set(" ".join(texts).split())
