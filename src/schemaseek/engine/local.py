"""The sources of one command, served as the network service serves them: one engine per
source, its snapshot generations in the data directory, one federated search over them.

The command line (``search``, ``index``) and the MCP server use this, so the second run of
anything on an unchanged source embeds nothing and builds no graph:

* each source's generations live in their own store,
  ``<store root>/<name>-<hash of the source's origin>`` (a file's absolute path, a database or
  endpoint URL without its secrets): two projects with a source of the same name never share
  generations, and every command reading the same origin does;
* a source that can fingerprint its input without reading it (a file: its bytes' SHA-256) and
  whose fingerprint is the one recorded with its last generation is served from that generation
  at once, without being read or parsed (``origin.json`` beside the generations records it);
* any other source starts from its newest generation when there is one, is read, and only
  documents whose content changed are embedded (then a new generation is saved);
* document vectors also go through the on-disk content-hash cache, so the same text is never
  embedded twice, whatever the source.

``wait=False`` starts every engine in the background: keyword and glossary answer at once
(``degraded``) and vectors join when they are ready (what the MCP server does).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from pathlib import Path

from schemaseek.config import SearchSettings
from schemaseek.documents import SearchResponse
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.question_store import PersistentQuestions, persist_questions
from schemaseek.engine.core import SourceEngine
from schemaseek.engine.persistence import open_snapshots
from schemaseek.engine.report import EngineReport
from schemaseek.engine.units import EngineUnit
from schemaseek.errors import SnapshotError
from schemaseek.federation import Served, federated_search
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.progress import StageProgress
from schemaseek.query.filters import SearchFilter
from schemaseek.query.state import Mode
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema

__all__ = ["LocalEngines", "LocalSource", "store_key"]

logger = logging.getLogger(__name__)

ORIGIN_FILE = "origin.json"
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class LocalSource:
    """A source to serve: its name, how to read it, where it comes from (``origin``, no
    secrets) and, when it can tell without reading it, a fingerprint of its input."""

    name: str
    load: Callable[[], SourceSchema]
    origin: str
    digest: Callable[[], str | None] = field(default=lambda: None)


def store_key(source: LocalSource) -> str:
    """The folder of a source's generations: its name and a hash of its origin."""
    digest = hashlib.sha256(source.origin.encode("utf-8")).hexdigest()[:12]
    return f"{_SLUG.sub('_', source.name)[:48]}-{digest}"


def file_digest(*paths: Path) -> Callable[[], str | None]:
    """A fingerprint of files' bytes (SHA-256), None when one cannot be read."""

    def digest() -> str | None:
        hasher = hashlib.sha256()
        try:
            for path in paths:
                hasher.update(path.read_bytes())
                hasher.update(b"\x00")
        except OSError:
            return None
        return hasher.hexdigest()

    return digest


class LocalEngines:
    """One engine per source over a store root (see the module docstring).

    Args:
        sources: what to serve.
        glossary: the glossary (each engine keeps the entries about its own source).
        settings: search settings.
        provider: the embedding model, or None for keyword + glossary only (nothing is saved
            then); wrapped here to count what it embeds, behind the disk cache when
            ``cache_dir`` is given, and behind one query cache that every engine shares.
        cache_dir: the content-hash cache of document vectors (None: no cache).
        store_root: where generations live; None keeps nothing.
        keyed: one store per source under ``store_root`` (named by :func:`store_key`); False
            puts every source in ``store_root`` itself by name (an explicit ``--snapshot-dir``).
        progress: told how embedding and snapshot loads and saves go.
    """

    def __init__(
        self,
        sources: Sequence[LocalSource],
        *,
        glossary: Glossary,
        settings: SearchSettings,
        provider: EmbeddingProvider | None,
        store_root: str | Path | None,
        cache_dir: str | Path | None = None,
        keyed: bool = True,
        progress: StageProgress | None = None,
        label: str = "",
    ) -> None:
        self.sources = list(sources)
        self.label = label or ", ".join(s.name for s in self.sources)
        self.glossary = glossary
        self.settings = settings
        self.counter = CountingProvider(provider) if provider is not None else None
        self.provider: EmbeddingProvider | None = None
        self.questions: PersistentQuestions | None = None
        if self.counter is not None:
            documents: EmbeddingProvider = self.counter
            if cache_dir is not None:
                self.questions = persist_questions(
                    DiskCachedProvider(self.counter, Path(cache_dir)), Path(cache_dir)
                )
                documents = self.questions
            # one question, one embedding, whichever engines answer it
            self.provider = CachedQueryEmbedder(
                documents, maxsize=settings.query_cache_size, ttl=settings.query_cache_ttl_s
            )
        self.store_root = Path(store_root) if store_root is not None else None
        self.keyed = keyed
        self.progress = progress
        self.engines: list[SourceEngine] = []
        self.futures: list[Future[EngineReport]] = []
        self.warm: list[str] = []
        """Sources served from their recorded generation without being read."""
        self._lock = threading.Lock()
        self._closed = False

    # -- starting ---------------------------------------------------------------------------

    def start(self, *, wait_for_vectors: bool = True) -> None:
        """Start every engine; with ``wait_for_vectors``, return once each serves vectors
        (or failed to), else as soon as each answers keyword + glossary."""
        for source in self.sources:
            engine, future = self._start(source)
            with self._lock:
                if self._closed:  # closed while this one started
                    engine.destroy()
                    return
                self.engines.append(engine)
                self.futures.append(future)
        if wait_for_vectors:
            self.wait()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for every engine's background phase; True when all are done."""
        _, pending = wait(self.futures, timeout=timeout)
        return not pending

    def _start(self, source: LocalSource) -> tuple[SourceEngine, Future[EngineReport]]:
        manager = self._manager(source)

        def make(name: str, fetch: Callable[[], SourceSchema]) -> SourceEngine:
            return SourceEngine(
                name, fetch, provider=self.provider, glossary=self.glossary,
                settings=self.settings, snapshots=manager, progress=self.progress,
            )  # fmt: skip

        # the unit keeps the glossary entries about the source it read (as the service does)
        engine = EngineUnit(source.name, source.load, make, self.glossary).engine
        recorded = self._recorded(source)
        digest = self._input_digest(source) if recorded is not None else None
        if recorded is not None and digest is not None and recorded.get("digest") == digest:
            try:
                future = engine.init(generation=str(recorded["generation"]), catch_up=False)
            except SnapshotError as exc:  # gone or damaged: read the source instead
                logger.info("source %r: recorded generation unusable (%s)", source.name, exc)
                engine.destroy()
                engine = EngineUnit(source.name, source.load, make, self.glossary).engine
            else:
                self.warm.append(source.name)
                return engine, future
        future = engine.init()
        future.add_done_callback(functools.partial(self._recorded_after, source, engine))
        return engine, future

    # -- the origin record --------------------------------------------------------------------

    def _folder(self, source: LocalSource) -> Path | None:
        if self.store_root is None:
            return None
        return self.store_root / store_key(source) if self.keyed else self.store_root

    def _manager(self, source: LocalSource) -> SnapshotManager | None:
        folder = self._folder(source)
        if folder is None or self.counter is None:
            return None
        return open_snapshots(str(folder), self.settings)

    def _origin_file(self, source: LocalSource) -> Path | None:
        folder = self._folder(source)
        if folder is None or not self.keyed:
            return None
        return folder / ORIGIN_FILE

    def _input_digest(self, source: LocalSource) -> str | None:
        """The source's fingerprint together with everything else its documents come from:
        the glossary (its entries become document context) and the embedding model."""
        digest = source.digest()
        if digest is None:
            return None
        hasher = hashlib.sha256(digest.encode("utf-8"))
        hasher.update(self.glossary.model_dump_json().encode("utf-8"))
        if self.counter is not None:
            hasher.update(f"{self.counter.model_id}/{self.counter.dimensions}".encode())
        return hasher.hexdigest()

    def _recorded(self, source: LocalSource) -> dict[str, object] | None:
        path = self._origin_file(source)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("generation") else None

    def _recorded_after(
        self, source: LocalSource, engine: SourceEngine, _done: Future[EngineReport]
    ) -> None:
        self._record(source, engine)

    def _record(self, source: LocalSource, engine: SourceEngine) -> None:
        """After a start that read the source: which generation its current input made."""
        path = self._origin_file(source)
        digest = self._input_digest(source)
        if path is None or digest is None or engine.generation is None:
            return
        payload = {"digest": digest, "generation": engine.generation, "origin": source.origin}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".origin-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle)
            os.replace(tmp, path)
        except OSError as exc:  # the next run reads the source again: slower, not wrong
            logger.warning("could not record the generation of %r: %s", source.name, exc)

    # -- serving ------------------------------------------------------------------------------

    def indexes(self) -> list[SchemaIndex]:
        """The indexes that serve now."""
        return [e.index for e in self.engines if e.index.built]

    def index_of(self, source: str) -> SchemaIndex | None:
        """The index serving ``source``."""
        return next((i for i in self.indexes() if any(s.name == source for s in i.sources)), None)

    def search(
        self,
        question: str,
        *,
        limit: int = 10,
        mode: Mode = "hybrid",
        search_filter: SearchFilter | None = None,
    ) -> SearchResponse:
        """One search over every source, merged by fused score (see
        :func:`schemaseek.federation.federated_search`)."""
        members = [Served(e.name, e.index) for e in self.engines if e.index.built]
        answer = federated_search(
            members, question, limit=limit, mode=mode, search_filter=search_filter,
            settings=self.settings,
        )  # fmt: skip
        return answer.response()

    @property
    def building(self) -> bool:
        """Whether an engine is still embedding (its answers are keyword + glossary)."""
        return any(not f.done() for f in self.futures)

    def reports(self) -> list[EngineReport]:
        """Each engine's last report (a warm start reports its loaded generation)."""
        return [e.last_report for e in self.engines if e.last_report is not None]

    @property
    def embedded_documents(self) -> int:
        """Documents embedded by the model in this process (cache hits not counted)."""
        return self.counter.embedded_texts if self.counter is not None else 0

    @property
    def question_model_calls(self) -> int:
        """Calls that ran the model for a question or its reranked candidates (counted
        behind the question store, which ``cache_dir`` turns on; 0 without it)."""
        return self.questions.model_calls if self.questions is not None else 0

    def close(self) -> None:
        """Stop every engine: background work is cancelled and waited for (an embedding
        batch in flight finishes first). Safe from any thread, also while :meth:`start`
        runs."""
        with self._lock:
            self._closed = True
            engines = list(self.engines)
        for engine in engines:
            engine.destroy()
