"""Generations of one store: save, verify, load with fallback, list, prune, roll back.

Layout: ``v<format>/<source>/<fingerprint>/<generation>/`` holding the data files and
``manifest.json``. :meth:`SnapshotManager.load` hands the newest generation of a source and
fingerprint that verifies completely to a loader (skipping the others with a log line saying
why); when none is left the caller cold-starts.

:meth:`SnapshotManager.verify` is the one validation of a generation: its manifest, every
file's size and SHA-256, then the manager's ``check`` of what the files hold against what the
manifest says (:func:`~schemaseek.index.files.check_generation`, given by
:func:`schemaseek.engine.persistence.open_snapshots`). Start-up, ``snapshot verify`` / ``list``
and ``ListSnapshots`` all use it (:meth:`SnapshotManager.problem`): they never disagree.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import quote, unquote

from schemaseek.snapshots.fencing import Fence
from schemaseek.snapshots.fingerprint import EmbeddingFingerprint
from schemaseek.snapshots.manifest import (
    FORMAT_VERSION,
    MANIFEST,
    FileEntry,
    Manifest,
    SnapshotError,
    file_entry,
    new_generation_id,
    parse_generation_time,
)
from schemaseek.snapshots.retention import Candidate, RetentionPolicy, compute_retention
from schemaseek.snapshots.store import SnapshotStore

__all__ = ["GenerationInfo", "Loaded", "SnapshotManager", "VerifiedGeneration"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
ROOT = f"v{FORMAT_VERSION}"
_VERIFY_THREADS = 4


def _token_field(token: int | None) -> dict[str, int]:
    return {} if token is None else {"fencing_token": token}


def source_dir(source: str) -> str:
    """A path-safe folder name for a source (percent-encoded, never hidden)."""
    name = quote(source, safe="")
    return "%2E" + name[1:] if name.startswith(".") else name


@dataclass(frozen=True, slots=True)
class GenerationInfo:
    """A generation as listed: its place and manifest (None with ``error`` when unreadable)."""

    source: str
    fingerprint: str
    generation: str
    manifest: Manifest | None = None
    error: str | None = None

    @property
    def prefix(self) -> str:
        return f"{ROOT}/{source_dir(self.source)}/{self.fingerprint}/{self.generation}"

    @property
    def created_unix(self) -> float:
        if self.manifest is not None:
            return self.manifest.created_unix
        return parse_generation_time(self.generation) or 0.0


@dataclass(slots=True)
class VerifiedGeneration:
    """A generation whose every file matched its manifest; ``files`` hold the checked bytes."""

    info: GenerationInfo
    manifest: Manifest
    files: dict[str, memoryview]
    local_paths: dict[str, Path] = field(default_factory=dict)

    def read(self, name: str) -> memoryview:
        """The verified bytes of ``name``; :class:`SnapshotError` when the generation has none."""
        try:
            return self.files[name]
        except KeyError:
            raise SnapshotError(f"generation lacks the file {name!r}") from None


@dataclass(frozen=True, slots=True)
class Loaded(Generic[T]):
    """What :meth:`SnapshotManager.load` returns: the loader's value and its generation."""

    value: T
    generation: VerifiedGeneration


class SnapshotManager:
    """Generations in ``store``; see the module docstring."""

    def __init__(
        self,
        store: SnapshotStore,
        *,
        policy: RetentionPolicy | None = None,
        clock: Callable[[], float] = time.time,
        partial_grace_s: float = 3600.0,
        check: Callable[[VerifiedGeneration], None] | None = None,
    ) -> None:
        self.store = store
        self.policy = policy or RetentionPolicy()
        self._clock = clock
        self.partial_grace_s = partial_grace_s
        self.fence = Fence(store)
        self.check = check
        self._valid: dict[str, bool] = {}  # generations are immutable: verify once
        self._problems: dict[str, str] = {}

    # -- listing --------------------------------------------------------------------------

    def sources(self) -> list[str]:
        """Every source with a folder in the store."""
        return [unquote(name) for name in self.store.list_dir(ROOT)]

    def generations(self, source: str, fingerprint: str | None = None) -> list[GenerationInfo]:
        """Generations of ``source`` (one fingerprint or all), newest first; manifests are
        parsed but files are not verified."""
        base = f"{ROOT}/{source_dir(source)}"
        keys = [fingerprint] if fingerprint is not None else self.store.list_dir(base)
        found: list[GenerationInfo] = []
        for key in keys:
            for generation in self.store.list_dir(f"{base}/{key}"):
                found.append(self._info(source, key, generation))
        found.sort(key=lambda g: (g.created_unix, g.generation), reverse=True)
        return found

    def _info(self, source: str, fingerprint: str, generation: str) -> GenerationInfo:
        info = GenerationInfo(source, fingerprint, generation)
        try:
            manifest = Manifest.from_json(bytes(self.store.read(f"{info.prefix}/{MANIFEST}")))
            manifest.check_place(source, fingerprint, generation)
        except FileNotFoundError:
            return GenerationInfo(source, fingerprint, generation, error="incomplete: no manifest")
        except SnapshotError as exc:
            return GenerationInfo(source, fingerprint, generation, error=str(exc))
        return GenerationInfo(source, fingerprint, generation, manifest)

    def find(self, source: str, generation: str) -> GenerationInfo:
        """The generation called ``generation`` of ``source`` under any fingerprint."""
        for info in self.generations(source):
            if info.generation == generation:
                return info
        raise SnapshotError(f"source {source!r} has no generation {generation!r}")

    # -- verifying and loading ------------------------------------------------------------

    def verify(self, info: GenerationInfo) -> VerifiedGeneration:
        """Read every file of ``info`` and check sizes and SHA-256; :class:`SnapshotError`
        names the first problem."""
        if info.manifest is None:
            self._valid[info.prefix] = False
            self._problems[info.prefix] = info.error or "no manifest"
            raise SnapshotError(info.error or "no manifest")
        manifest = info.manifest

        def check(item: tuple[str, FileEntry]) -> tuple[str, memoryview]:
            name, expected = item
            try:
                data = self.store.read(f"{info.prefix}/{name}")
            except FileNotFoundError:
                raise SnapshotError(f"file {name} is missing") from None
            if len(data) != expected.size:
                raise SnapshotError(f"file {name} has {len(data)} bytes, expected {expected.size}")
            actual = file_entry(data).sha256
            if actual != expected.sha256:
                raise SnapshotError(
                    f"file {name} fails its SHA-256 check (expected {expected.sha256[:12]}…, "
                    f"got {actual[:12]}…)"
                )
            return name, data

        try:
            with ThreadPoolExecutor(_VERIFY_THREADS) as pool:
                files = dict(pool.map(check, manifest.files.items()))
            paths = {}
            for name in files:
                path = self.store.local_path(f"{info.prefix}/{name}")
                if path is not None:
                    paths[name] = path
            verified = VerifiedGeneration(info, manifest, files, paths)
            if self.check is not None:
                self.check(verified)
        except SnapshotError as exc:
            self._valid[info.prefix] = False
            self._problems[info.prefix] = str(exc)
            raise
        self._valid[info.prefix] = True
        return verified

    def problem(self, info: GenerationInfo) -> str | None:
        """Why ``info`` is not loadable (:meth:`verify`, cached), or None when it is."""
        if not self.is_valid(info):
            return self._problems.get(info.prefix) or info.error or "not loadable"
        return None

    def is_valid(self, info: GenerationInfo) -> bool:
        """Whether ``info`` verifies (cached per generation: they never change)."""
        if info.prefix not in self._valid:
            with contextlib.suppress(SnapshotError):
                self.verify(info)
        return self._valid[info.prefix]

    def load(
        self,
        source: str,
        fingerprint: EmbeddingFingerprint,
        loader: Callable[[VerifiedGeneration], T],
    ) -> Loaded[T] | None:
        """The newest generation of ``source`` under ``fingerprint`` that verifies and that
        ``loader`` accepts (it raises :class:`SnapshotError` to refuse); None → cold start."""
        where = self.store.description
        for info in self.generations(source, fingerprint.key):
            try:
                verified = self.verify(info)
                if verified.manifest.fingerprint != fingerprint:
                    raise SnapshotError("embedding fingerprint fields differ")
                value = loader(verified)
            except SnapshotError as exc:
                self._valid[info.prefix] = False
                self._problems[info.prefix] = str(exc)
                logger.warning(
                    "snapshot generation %s of source %r in %s rejected: %s; trying an older one",
                    info.generation,
                    source,
                    where,
                    exc,
                )
                continue
            logger.info(
                "loaded snapshot generation %s of source %r from %s", info.generation, source, where
            )
            return Loaded(value, verified)
        others = [g for g in self.generations(source) if g.fingerprint != fingerprint.key]
        if others:
            logger.warning(
                "snapshots of source %r in %s are for another embedding fingerprint (%s); "
                "they are never mixed: cold start",
                source,
                where,
                ", ".join(sorted({g.fingerprint for g in others})),
            )
        else:
            logger.info("no valid snapshot of source %r in %s: cold start", source, where)
        return None

    def load_generation(
        self,
        source: str,
        fingerprint: EmbeddingFingerprint,
        generation: str,
        loader: Callable[[VerifiedGeneration], T],
    ) -> Loaded[T]:
        """Exactly ``generation`` of ``source`` (an announced one): verified and handed to
        ``loader``; :class:`SnapshotError` when it is missing, corrupt or of another
        fingerprint (nothing older is tried)."""
        info = self._info(source, fingerprint.key, generation)
        verified = self.verify(info)
        if verified.manifest.fingerprint != fingerprint:
            raise SnapshotError("embedding fingerprint fields differ")
        return Loaded(loader(verified), verified)

    def highest_token(self, source: str) -> int:
        """The highest fencing token registered for ``source`` (0: none)."""
        return self.fence.highest(source_dir(source))

    def register_token(self, source: str, token: int) -> int:
        """Tell the store that fencing token ``token`` now builds ``source``: saves with a
        lower token are refused from here on (:mod:`~schemaseek.snapshots.fencing`)."""
        return self.fence.register(source_dir(source), token)

    # -- writing --------------------------------------------------------------------------

    def save(
        self,
        source: str,
        fingerprint: EmbeddingFingerprint,
        files: Mapping[str, bytes | memoryview],
        *,
        schema_hash: str,
        documents: int,
        vectors: int,
        ann_graph: bool = False,
        parent: str | None = None,
        rolled_back_from: str | None = None,
        extra: Mapping[str, Any] | None = None,
        prune: bool = True,
        fencing_token: int | None = None,
    ) -> Manifest:
        """Write a new generation (data files, then the manifest) and apply retention. With
        ``fencing_token``, the manifest is written only when the store has registered no
        higher token (:class:`~schemaseek.errors.StaleTokenError` otherwise)."""
        if MANIFEST in files:
            raise SnapshotError(f"{MANIFEST} is reserved")
        generation = new_generation_id(self._clock())
        info = GenerationInfo(source, fingerprint.key, generation)
        writer = self.store.begin(info.prefix)
        try:
            entries: dict[str, FileEntry] = {}
            for name, data in files.items():
                entries[name] = file_entry(data)
                writer.write(name, data)
            manifest = Manifest(
                source=source,
                generation=generation,
                fingerprint=fingerprint,
                schema_hash=schema_hash,
                documents=documents,
                vectors=vectors,
                created_unix=parse_generation_time(generation) or self._clock(),
                files=entries,
                ann_graph=ann_graph,
                parent=parent,
                rolled_back_from=rolled_back_from,
                extra={**(extra or {}), **_token_field(fencing_token)},
            )
            if fencing_token is None:
                writer.commit(manifest.to_json())
            else:
                folder = source_dir(source)
                with self.store.exclusive(Fence.key(folder)):
                    self.fence.check(folder, fencing_token)
                    writer.commit(manifest.to_json())
        except BaseException:
            writer.abort()
            raise
        self._valid[info.prefix] = True
        if prune:
            try:
                self.prune(source, fingerprint.key)
            except Exception as exc:  # retention is housekeeping; the save itself succeeded
                logger.warning("snapshot retention for %r failed: %s", source, exc)
        return manifest

    def prune(self, source: str, fingerprint: str) -> list[str]:
        """Apply the retention policy to one fingerprint folder; returns deleted ids."""
        infos = self.generations(source, fingerprint)
        valid: list[GenerationInfo] = []
        for info in infos:  # newest first: the floor counts verified generations only
            if len(valid) >= self.policy.min_valid:
                break
            if self.is_valid(info):
                valid.append(info)
        valid_ids = {v.generation for v in valid}
        candidates = [
            Candidate(i.generation, i.created_unix, i.generation in valid_ids) for i in infos
        ]
        keep = compute_retention(candidates, self._clock(), self.policy)
        deleted = []
        for info in infos:
            if info.generation not in keep:
                self.store.delete_tree(info.prefix)
                self._valid.pop(info.prefix, None)
                deleted.append(info.generation)
        base = f"{ROOT}/{source_dir(source)}/{fingerprint}"
        self.store.purge_partials(base, self.partial_grace_s)
        if deleted:
            logger.info("snapshot retention deleted %d generation(s) of %r", len(deleted), source)
        return deleted

    def rollback(
        self, source: str, generation: str, *, extra: Mapping[str, Any] | None = None
    ) -> Manifest:
        """Make ``generation`` the newest again: it is verified and copied as a new generation
        (``rolled_back_from`` records the original, ``extra`` is added to its manifest's), so
        loaders pick it up next."""
        info = self.find(source, generation)
        verified = self.verify(info)
        manifest = verified.manifest
        newest = self.generations(source, info.fingerprint)
        return self.save(
            source,
            manifest.fingerprint,
            verified.files,
            schema_hash=manifest.schema_hash,
            documents=manifest.documents,
            vectors=manifest.vectors,
            ann_graph=manifest.ann_graph,
            parent=newest[0].generation if newest else None,
            rolled_back_from=generation,
            extra={**manifest.extra, **(extra or {})},
        )
