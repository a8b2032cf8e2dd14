"""Byte formats of snapshot files: those of :mod:`schemaseek.arrays`, re-exported.

``.npy`` arrays read without copying and record files (deflated JSON records plus offsets);
see :mod:`schemaseek.arrays`. Their :class:`~schemaseek.arrays.FileFormatError` is a
:class:`~schemaseek.errors.SnapshotError`.
"""

from __future__ import annotations

from schemaseek.arrays import (
    FileFormatError,
    RecordReader,
    encode_raw_records,
    encode_records,
    npy_bytes,
    npy_view,
)

__all__ = [
    "FileFormatError",
    "RecordReader",
    "encode_raw_records",
    "encode_records",
    "npy_bytes",
    "npy_view",
]
