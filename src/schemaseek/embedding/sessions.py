"""The one onnxruntime session builder, shared by the embedder and the cross-encoder.

Execution providers, thread settings and the graph-optimisation level are chosen here once:
``device="cpu"`` runs on the CPU provider; ``"cuda"`` needs onnxruntime's
``CUDAExecutionProvider`` (the ``[gpu]`` extra) and fails, naming the extra, without it or when
it does not start; ``"auto"`` uses CUDA when onnxruntime offers it, else the CPU. Sessions run
sequentially with one inter-op thread, every graph optimisation, and warnings silenced.

**The optimised graph, saved once** (``optimized_dir``, CPU only): optimising the graph costs
each new session more CPU than loading the graph optimised before (all-MiniLM-L6-v2 int8, one
thread: 0.19 s against 0.14 s; without optimisation 0.04 s, but queries run 4× slower), the
two give identical vectors and queries cost about 2 % more on the saved graph
(``bench/onnx_sessions.py``, bench/RESULTS.md). So the first session
optimises at the extended level (the portable one) and writes the graph to ``optimized_dir``
(≈ 90 MB for this model: its int8 weights are folded to float32), named by the model file's
path, size and modification time, the onnxruntime version and the machine; later sessions load
that file with optimisation off. A cache that cannot be written or read falls back to
optimising in memory.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import secrets
from pathlib import Path
from typing import Any, Literal

from schemaseek.errors import EmbeddingError

__all__ = ["CPU_PROVIDER", "CUDA_PROVIDER", "Device", "execution_providers", "onnx_session"]

logger = logging.getLogger(__name__)

Device = Literal["cpu", "cuda", "auto"]

CUDA_PROVIDER = "CUDAExecutionProvider"
CPU_PROVIDER = "CPUExecutionProvider"

_NO_CUDA = (
    "device='cuda' needs onnxruntime's CUDAExecutionProvider; install it with: "
    "pip install 'schemaseek[gpu]'"
)


def _onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise EmbeddingError(f"onnxruntime cannot be imported: {exc}") from exc
    return onnxruntime


def execution_providers(device: Device) -> list[str]:
    """The onnxruntime execution providers for ``device``, in order of preference.

    Raises:
        EmbeddingError: onnxruntime is missing, or ``device="cuda"`` without CUDA support.
    """
    if device == "cpu":
        _onnxruntime()
        return [CPU_PROVIDER]
    if CUDA_PROVIDER in _onnxruntime().get_available_providers():
        return [CUDA_PROVIDER, CPU_PROVIDER]
    if device == "cuda":
        raise EmbeddingError(_NO_CUDA)
    return [CPU_PROVIDER]


def onnx_session(
    path: str | Path,
    *,
    device: Device,
    intra_op_threads: int,
    optimized_dir: str | Path | None = None,
) -> Any:
    """An ``onnxruntime.InferenceSession`` for the model at ``path`` on ``device``.

    ``intra_op_threads``: threads of one operator (``1`` keeps the query path steady when other
    work holds the cores; ``0`` lets onnxruntime use every core, for bulk work).
    ``optimized_dir``: where the optimised graph is saved once and loaded from (CPU; see the
    module docstring); None optimises in memory at every start.

    Raises:
        EmbeddingError: onnxruntime is missing, the model cannot be loaded, or CUDA was asked
            for and is unavailable or did not start.
    """
    providers = execution_providers(device)
    ort = _onnxruntime()
    if optimized_dir is not None and providers == [CPU_PROVIDER]:
        session = _saved_session(ort, Path(path), Path(optimized_dir), intra_op_threads)
        if session is not None:
            return session
    options = _options(ort, intra_op_threads)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=providers)
    except Exception as exc:
        raise EmbeddingError(f"onnxruntime cannot load {path}: {exc}") from exc
    if device == "cuda" and CUDA_PROVIDER not in session.get_providers():
        raise EmbeddingError(
            "onnxruntime could not start CUDAExecutionProvider (check CUDA/cuDNN); "
            "the [gpu] extra and a working CUDA install are needed for device='cuda'"
        )
    return session


def _options(ort: Any, intra_op_threads: int) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return options


def _saved_session(ort: Any, model: Path, folder: Path, intra_op_threads: int) -> Any:
    """A CPU session from the saved optimised graph (saving it first if needed); None when
    the cache cannot be used (the caller then optimises in memory)."""
    try:
        stat = model.stat()
    except OSError:
        return None  # the caller's load reports the missing model
    parts = (model.resolve(), stat.st_size, stat.st_mtime_ns, ort.__version__, platform.machine())
    identity = "|".join(map(str, parts))
    saved = folder / f"{model.stem}-{hashlib.sha256(identity.encode()).hexdigest()[:16]}.onnx"
    options = _options(ort, intra_op_threads)
    if saved.is_file():
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(saved), options, providers=[CPU_PROVIDER])
        except Exception as exc:
            logger.warning(
                "the saved optimised graph %s is unusable (%s); optimising again", saved, exc
            )
    partial = saved.with_name(f".{saved.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(partial)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        session = ort.InferenceSession(str(model), options, providers=[CPU_PROVIDER])
        os.replace(partial, saved)  # whole or not at all, whoever writes it concurrently
    except Exception as exc:
        logger.info("cannot save the optimised graph of %s in %s: %s", model, folder, exc)
        return None
    finally:
        partial.unlink(missing_ok=True)
    return session
