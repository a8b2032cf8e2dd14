"""Byte formats of persisted files: ``.npy`` arrays read without copying, and record files.

* ``.npy``: numpy's documented format (version 1.0/2.0 headers), little-endian plain dtypes
  only — never object arrays, so never pickle. :func:`npy_view` maps the array onto the
  given bytes (a memory-mapped file stays mapped, nothing is copied).
* Record files: UTF-8 JSON records, each deflated on its own with zlib and concatenated, plus
  an ``int64`` ``.npy`` of N + 1 offsets. One record is read by slicing and inflating it, so
  large document sets load lazily.

The module depends on no other layer: the signals persist themselves with it
(:mod:`schemaseek.signals.files`), and so do the snapshots' documents. Its error,
:class:`FileFormatError`, is a :class:`~schemaseek.errors.SnapshotError`, so a loader that
meets a malformed file (:meth:`SnapshotManager.load
<schemaseek.snapshots.manager.SnapshotManager.load>`) tries an older generation.
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.errors import SnapshotError

__all__ = [
    "FileFormatError",
    "RecordReader",
    "encode_raw_records",
    "encode_records",
    "npy_bytes",
    "npy_view",
]

_HEADER_PROBE = 1 << 16


class FileFormatError(SnapshotError):
    """Persisted bytes do not make sense: not the expected format, a size that does not match
    its header, or files that disagree with each other."""


def npy_bytes(array: npt.NDArray[Any]) -> bytes:
    """``array`` as ``.npy`` bytes (C order, no pickle)."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def npy_view(data: memoryview | bytes, dtype: str, ndim: int) -> npt.NDArray[Any]:
    """A read-only array over ``.npy`` bytes without copying; checks dtype and rank.

    Raises:
        FileFormatError: not an ``.npy`` file, another dtype or rank, Fortran order, or a size
            that does not match the header.
    """
    probe = io.BytesIO(bytes(data[:_HEADER_PROBE]))
    try:
        version = np.lib.format.read_magic(probe)
        if version == (1, 0):
            shape, fortran, found = np.lib.format.read_array_header_1_0(probe)
        else:
            shape, fortran, found = np.lib.format.read_array_header_2_0(probe)
    except ValueError as exc:
        raise FileFormatError(f"not a valid .npy file: {exc}") from None
    if found != np.dtype(dtype) or fortran or len(shape) != ndim:
        raise FileFormatError(
            f"expected a C-order {dtype} array of rank {ndim}, got {found} {shape}"
        )
    count = int(np.prod(shape)) if shape else 1
    offset = probe.tell()
    if len(data) - offset != count * found.itemsize:
        raise FileFormatError(".npy payload size does not match its header")
    array = np.frombuffer(data, dtype=found, count=count, offset=offset)
    return array.reshape(shape)


def encode_records(records: Iterable[Any], level: int = 1) -> tuple[bytes, bytes]:
    """``(data, offsets_npy)`` for JSON-serialisable ``records`` (see the module docstring)."""
    chunks: list[bytes] = []
    offsets = [0]
    for record in records:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        chunk = zlib.compress(text.encode("utf-8"), level)
        chunks.append(chunk)
        offsets.append(offsets[-1] + len(chunk))
    return b"".join(chunks), npy_bytes(np.asarray(offsets, dtype="<i8"))


def encode_raw_records(chunks: Iterable[bytes]) -> tuple[bytes, bytes]:
    """Like :func:`encode_records` for already deflated records (copied as they are)."""
    parts = list(chunks)
    offsets = np.zeros(len(parts) + 1, dtype="<i8")
    np.cumsum([len(c) for c in parts], out=offsets[1:])
    return b"".join(parts), npy_bytes(offsets)


class RecordReader:
    """Random access to a record file; records are inflated and parsed on demand.

    Raises:
        FileFormatError: (construction) offsets that do not match the data; (:meth:`get`) a
            record that does not inflate or parse.
    """

    def __init__(self, data: memoryview | bytes, offsets: memoryview | bytes) -> None:
        self._data = data
        self._offsets = npy_view(offsets, "<i8", 1)
        if self._offsets.shape[0] < 1 or int(self._offsets[-1]) != len(data):
            raise FileFormatError("record offsets do not match the record data")

    def __len__(self) -> int:
        return int(self._offsets.shape[0]) - 1

    def raw(self, index: int) -> bytes:
        """The deflated bytes of record ``index``."""
        start, end = int(self._offsets[index]), int(self._offsets[index + 1])
        return bytes(self._data[start:end])

    def get(self, index: int) -> Any:
        """Record ``index``, parsed."""
        try:
            return json.loads(zlib.decompress(self.raw(index)))
        except (zlib.error, ValueError) as exc:
            raise FileFormatError(f"record {index} is unreadable: {exc}") from None
