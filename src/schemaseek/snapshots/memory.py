"""An in-memory store, for tests and throwaway processes."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from schemaseek.snapshots.manifest import MANIFEST

__all__ = ["MemoryStore", "named_memory_store"]

_NAMED: dict[str, MemoryStore] = {}
_NAMED_LOCK = threading.Lock()


class _MemoryWriter:
    def __init__(self, store: MemoryStore, prefix: str) -> None:
        self._store = store
        self._prefix = prefix.rstrip("/")
        self._written: list[str] = []

    def write(self, name: str, data: bytes | memoryview) -> None:
        key = f"{self._prefix}/{name}"
        self._store.put(key, bytes(data))
        self._written.append(key)

    def commit(self, manifest: bytes) -> None:
        self._store.put(f"{self._prefix}/{MANIFEST}", bytes(manifest))

    def abort(self) -> None:
        for key in self._written:
            self._store.delete(key)


class MemoryStore:
    """Files in a dict, written in the same order as the other stores (manifest last)."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._exclusive = threading.Lock()

    @property
    def description(self) -> str:
        return "memory"

    def put(self, key: str, data: bytes) -> None:
        """Store one file (also used by tests to plant corrupt data)."""
        with self._lock:
            self._files[key] = data

    def delete(self, key: str) -> None:
        """Remove one file if present."""
        with self._lock:
            self._files.pop(key, None)

    def stored_keys(self) -> list[str]:
        """Every stored key, sorted."""
        with self._lock:
            return sorted(self._files)

    def list_dir(self, prefix: str) -> list[str]:
        start = prefix.rstrip("/") + "/" if prefix else ""
        with self._lock:
            names = {k[len(start) :].split("/", 1)[0] for k in self._files if k.startswith(start)}
        return sorted(names)

    def read(self, key: str) -> memoryview:
        with self._lock:
            data = self._files.get(key)
        if data is None:
            raise FileNotFoundError(key)
        return memoryview(data)

    def local_path(self, key: str) -> Path | None:
        return None

    def begin(self, prefix: str) -> _MemoryWriter:
        return _MemoryWriter(self, prefix)

    def delete_tree(self, prefix: str) -> None:
        start = prefix.rstrip("/") + "/"
        with self._lock:
            for key in [k for k in self._files if k.startswith(start)]:
                del self._files[key]

    def purge_partials(self, prefix: str, older_than_s: float) -> int:
        return 0

    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        with self._exclusive:
            yield


def named_memory_store(name: str) -> MemoryStore:
    """The process-wide memory store called ``name`` (created on first use)."""
    with _NAMED_LOCK:
        return _NAMED.setdefault(name, MemoryStore())
