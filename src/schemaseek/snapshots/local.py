"""The default store: a local directory, written with atomic renames.

A generation is written into a hidden temporary folder next to its final place
(``.tmp-<generation>-<random>``): each data file is written and ``fsync``-ed, then
``manifest.json``, then the folder itself is ``fsync``-ed and renamed to ``<generation>`` (one
atomic ``rename``), and the parent folder is ``fsync``-ed. A crash at any point leaves either
no generation or a complete one; leftover temporary folders are never listed and are purged
once old. Files are read memory-mapped, and a mapping stays valid even if retention deletes
the file later.
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from schemaseek.snapshots.manifest import MANIFEST

__all__ = ["LocalDirStore"]

_TEMP = ".tmp-"
_TRASH = ".trash-"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _LocalWriter:
    def __init__(self, store: LocalDirStore, final: Path) -> None:
        self._store = store
        self._final = final
        final.parent.mkdir(parents=True, exist_ok=True)
        self._temp = final.parent / f"{_TEMP}{final.name}-{secrets.token_hex(4)}"
        self._temp.mkdir()
        self._dirs: set[Path] = {self._temp}

    def write(self, name: str, data: bytes | memoryview) -> None:
        path = self._temp / name
        if path.parent != self._temp:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(path.parent)
        self._store._write_file(path, data)

    def commit(self, manifest: bytes) -> None:
        self._store._write_file(self._temp / MANIFEST, manifest)
        for folder in sorted(self._dirs, key=lambda p: len(p.parts), reverse=True):
            _fsync_dir(folder)
        self._store._rename(self._temp, self._final)
        _fsync_dir(self._final.parent)

    def abort(self) -> None:
        shutil.rmtree(self._temp, ignore_errors=True)


class LocalDirStore:
    """Generations as folders under ``root`` (created on first write)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def description(self) -> str:
        return f"directory {self.root}"

    def list_dir(self, prefix: str) -> list[str]:
        try:
            names = os.listdir(self.root / prefix)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(n for n in names if not n.startswith("."))

    def read(self, key: str) -> memoryview:
        path = self.root / key
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                return memoryview(b"")
            return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))

    def local_path(self, key: str) -> Path | None:
        return self.root / key

    def begin(self, prefix: str) -> _LocalWriter:
        return _LocalWriter(self, self.root / prefix)

    def delete_tree(self, prefix: str) -> None:
        path = self.root / prefix
        if not path.exists():
            return
        # Unlist it atomically first: a reader never sees a half-deleted generation.
        trash = path.parent / f"{_TRASH}{path.name}-{secrets.token_hex(4)}"
        try:
            os.rename(path, trash)
        except FileNotFoundError:
            return
        shutil.rmtree(trash, ignore_errors=True)

    def purge_partials(self, prefix: str, older_than_s: float) -> int:
        folder = self.root / prefix
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return 0
        cutoff = time.time() - older_than_s
        purged = 0
        for entry in entries:
            if not entry.name.startswith((_TEMP, _TRASH)):
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime <= cutoff:
                    shutil.rmtree(entry.path, ignore_errors=True)
                    purged += 1
        return purged

    def put(self, key: str, data: bytes) -> None:
        path = self.root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.parent / f"{_TEMP}{path.name}-{secrets.token_hex(4)}"
        self._write_file(temp, data)
        os.replace(temp, path)
        _fsync_dir(path.parent)

    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        path = self.root / f"{key}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    # -- steps, separate so that tests can interrupt between them ---------------------------

    def _write_file(self, path: Path, data: bytes | memoryview) -> None:
        """Write ``data`` to a new file and ``fsync`` it."""
        with path.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def _rename(self, source: Path, target: Path) -> None:
        """Atomically move the finished temporary folder into place."""
        os.rename(source, target)
