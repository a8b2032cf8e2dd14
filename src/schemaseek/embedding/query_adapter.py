"""A learned linear map that moves a question's vector toward the documents that answer it.

The embedding model was trained on sentence pairs, not on business questions against schema
documents (``query field invoices. Invoices sent to customers. fields: …``). A square matrix
``W`` applied to the question's vector before the cosine (``normalize(q @ W)``) corrects part
of that; the document vectors, their caches and snapshots stay as they are. The packaged
adapter was fitted by ``tools/train_query_adapter.py`` on the dev halves of our labelled
GraphQL question sets for the packaged model (``bench/QUALITY.md``: scored on schemas it never
saw, and on the held-out halves). It costs one 384 × 384 product per search.

An adapter belongs to one model: it is stored with that model's id and applies only to it.
The ``query_adapter`` setting picks one: ``"auto"`` (the packaged adapter when the index embeds
with the model it was fitted for, none otherwise), ``"none"``, or the path of an ``.npz`` file
the tool wrote.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from schemaseek.embedding.base import Vectors
from schemaseek.errors import ConfigError

__all__ = ["QueryAdapter", "adapter_for", "load_adapter", "save_adapter"]

logger = logging.getLogger(__name__)

PACKAGED = "adapters/all-MiniLM-L6-v2-int8-onnx.npz"
"""The packaged adapter, beside this module (fitted for the packaged model)."""
OFF = frozenset({"", "none", "off"})


@dataclass(frozen=True, slots=True)
class QueryAdapter:
    """``matrix`` (dimensions × dimensions) for questions embedded by ``model_id``."""

    model_id: str
    matrix: Vectors
    trained_on: str = ""

    def apply(self, vector: Vectors) -> Vectors:
        """The question vector mapped and brought back to unit length."""
        mapped = np.asarray(vector, dtype=np.float32) @ self.matrix
        norm = float(np.linalg.norm(mapped))
        if norm == 0.0 or not np.isfinite(norm):
            return np.asarray(vector, dtype=np.float32)
        return (mapped / norm).astype(np.float32)


def save_adapter(adapter: QueryAdapter, path: Path) -> None:
    """Write ``adapter`` as a compressed ``.npz`` (the matrix in float16: half the bytes, and
    cosines move by less than 1e-3)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        np.savez_compressed(
            out,
            matrix=adapter.matrix.astype(np.float16),
            model_id=np.array(adapter.model_id),
            trained_on=np.array(adapter.trained_on),
        )


def load_adapter(path: Path) -> QueryAdapter:
    """Read an adapter :func:`save_adapter` wrote.

    Raises:
        ConfigError: the file is missing, unreadable or not a square matrix with a model id.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            matrix = np.asarray(data["matrix"], dtype=np.float32)
            model_id = str(data["model_id"])
            trained_on = str(data["trained_on"]) if "trained_on" in data else ""
    except (OSError, KeyError, ValueError) as exc:
        raise ConfigError(f"cannot read the query adapter {str(path)!r}: {exc}") from exc
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not model_id:
        raise ConfigError(f"{str(path)!r} is not a query adapter: a square matrix with a model id")
    return QueryAdapter(model_id, matrix, trained_on)


@lru_cache(maxsize=8)
def _cached(path: str) -> QueryAdapter:
    return load_adapter(Path(path))


@lru_cache(maxsize=1)
def _packaged() -> QueryAdapter | None:
    path = Path(str(resources.files("schemaseek.embedding").joinpath(PACKAGED)))
    if not path.is_file():  # an install without package data: search as before, and say so
        logger.warning("the packaged query adapter is missing (%s); questions are not mapped", path)
        return None
    return load_adapter(path)


def adapter_for(setting: str, model_id: str, dimensions: int) -> QueryAdapter | None:
    """The adapter ``setting`` names for questions embedded by ``model_id`` (loaded once).

    Raises:
        ConfigError: a named file is unreadable, or was fitted for another model or size.
    """
    key = setting.strip()
    if key.lower() in OFF:
        return None
    if key.lower() == "auto":
        packaged = _packaged()
        if packaged is None or packaged.model_id != model_id:
            return None
        return packaged if packaged.matrix.shape[0] == dimensions else None
    adapter = _cached(str(Path(key).expanduser()))
    if adapter.model_id != model_id or adapter.matrix.shape[0] != dimensions:
        raise ConfigError(
            f"the query adapter {key!r} was fitted for {adapter.model_id!r} "
            f"({adapter.matrix.shape[0]} dimensions); this index embeds with {model_id!r} "
            f"({dimensions}). Set query_adapter to 'auto' or 'none', or fit one for this model "
            "(tools/train_query_adapter.py)"
        )
    return adapter
