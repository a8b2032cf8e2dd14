"""A cross-encoder reranker on onnxruntime: the question and each candidate's text are read
together by one model that outputs a relevance logit per pair.

Any sequence-classification export works (an ``ms-marco`` MiniLM cross-encoder, a BGE
reranker): inputs ``input_ids`` and ``attention_mask``, plus ``token_type_ids`` when the model
declares it; the first output holds the logits, shaped ``(n,)``, ``(n, 1)`` or ``(n, 2)`` (the
last column, the "relevant" class, is the score). The pairs are encoded with the model's
Hugging Face ``tokenizer.json`` (pair encoding, truncated to ``max_length`` tokens).

Nothing is loaded at construction; the first :meth:`CrossEncoderReranker.rerank` loads the
tokenizer and a session with one intra-op thread (the query path stays predictable when other
work holds the cores).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.documents import Document
from schemaseek.embedding.sessions import Device, onnx_session
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.rerankers.base import Ranked, head_size, reorder

Scores = npt.NDArray[np.float32]
_Ids = npt.NDArray[np.int64]
_PAD_TOKENS = ("[PAD]", "<pad>", "<|padding|>")


class CrossEncoderReranker:
    """Re-scores candidates with a local ONNX cross-encoder.

    Args:
        model_path: the ONNX cross-encoder.
        tokenizer_path: its Hugging Face ``tokenizer.json``.
        max_length: pairs are truncated to this many tokens (longest part first).
        batch_size: most pairs per model run.
        device: ``"cpu"``, ``"cuda"`` (needs onnxruntime-gpu) or ``"auto"``.
        max_candidates: score only this many leading candidates (``None``: all); the rest keep
            the fused order below them.
        threads: intra-op threads of the session.
    """

    def __init__(
        self,
        model_path: str | Path,
        tokenizer_path: str | Path,
        *,
        max_length: int = 256,
        batch_size: int = 32,
        device: Device = "cpu",
        max_candidates: int | None = None,
        threads: int = 1,
    ) -> None:
        if device not in ("cpu", "cuda", "auto"):
            raise ConfigError(f"device must be 'cpu', 'cuda' or 'auto', not {device!r}")
        if max_length < 4 or batch_size < 1 or threads < 1:
            raise ConfigError("max_length must be >= 4, batch_size and threads >= 1")
        if max_candidates is not None and max_candidates < 1:
            raise ConfigError("max_candidates must be >= 1 (or None for all)")
        self.model_path = Path(model_path)
        self.tokenizer_path = Path(tokenizer_path)
        self.max_length = max_length
        self.batch_size = batch_size
        self.device: Device = device
        self.max_candidates = max_candidates
        self.threads = threads
        self.runs = 0
        """Model runs so far (one per batch)."""
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._session: Any = None
        self._inputs: frozenset[str] = frozenset()
        self._output = ""
        self._pad_id = 0

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer and the session have been loaded."""
        return self._session is not None

    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked:
        """Candidates re-sorted by the model's score of ``(query, embedding text)`` alone
        (``fused`` is not used: a cross-encoder's verdict replaces the fusion's)."""
        head = head_size(candidates, self.max_candidates)
        texts = [doc.embedding_text() for doc in candidates[:head]]
        return reorder(candidates, self.score(query, texts).tolist())

    def score(self, query: str, texts: Sequence[str]) -> Scores:
        """The relevance logit of each ``(query, text)`` pair, in input order."""
        out = np.empty(len(texts), dtype=np.float32)
        if not texts:
            return out
        self._ensure_loaded()
        encodings = self._tokenizer.encode_batch([(query, text) for text in texts])
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._run([encodings[i] for i in rows])
        return out

    # -- loading -----------------------------------------------------------------------------

    def _ensure_loaded(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        if not self.model_path.is_file():
            raise EmbeddingError(f"cross-encoder model file not found: {self.model_path}")
        if not self.tokenizer_path.is_file():
            raise EmbeddingError(f"cross-encoder tokenizer file not found: {self.tokenizer_path}")
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        except Exception as exc:
            raise EmbeddingError(f"cannot load tokenizer {self.tokenizer_path}: {exc}") from exc
        padding = tokenizer.padding
        pad_id = padding.get("pad_id") if padding else None
        if pad_id is None:
            pad_id = next(
                (i for t in _PAD_TOKENS if (i := tokenizer.token_to_id(t)) is not None), 0
            )
        tokenizer.no_padding()  # batches are padded to their own longest pair in _run
        tokenizer.enable_truncation(max_length=self.max_length)
        session = onnx_session(self.model_path, device=self.device, intra_op_threads=self.threads)
        names = frozenset(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= names:
            raise EmbeddingError(
                f"{self.model_path} lacks input_ids/attention_mask inputs: {sorted(names)}"
            )
        self._inputs = names
        self._output = session.get_outputs()[0].name
        self._pad_id = int(pad_id)
        self._tokenizer = tokenizer
        self._session = session

    # -- inference ---------------------------------------------------------------------------

    def _run(self, encodings: Sequence[Any]) -> Scores:
        width = max(len(e.ids) for e in encodings)
        ids: _Ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask: _Ids = np.zeros_like(ids)
        types: _Ids = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = encoding.ids
            mask[row, :n] = 1
            types[row, :n] = encoding.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = types
        try:
            raw = self._session.run([self._output], feeds)[0]
        except Exception as exc:
            raise EmbeddingError(f"cross-encoder inference failed: {exc}") from exc
        self.runs += 1
        return _logits(np.asarray(raw, dtype=np.float32), len(encodings), self.model_path)


def _logits(raw: Scores, n: int, model: Path) -> Scores:
    """One score per pair from ``(n,)``, ``(n, 1)`` or ``(n, k)`` logits (last column)."""
    if raw.ndim == 2 and raw.shape[0] == n and raw.shape[1] >= 1:
        scores = raw[:, -1]
    elif raw.ndim == 1 and raw.shape[0] == n:
        scores = raw
    else:
        raise EmbeddingError(f"{model} outputs shape {raw.shape}; expected ({n},) or ({n}, k)")
    if not np.all(np.isfinite(scores)):
        raise EmbeddingError(f"{model} produced non-finite scores")
    return np.ascontiguousarray(scores, dtype=np.float32)
