"""The one onnxruntime session builder, shared by the embedder and the cross-encoder.

Execution providers, thread settings and the graph-optimisation level are chosen here once:
``device="cpu"`` runs on the CPU provider; ``"cuda"`` needs onnxruntime's
``CUDAExecutionProvider`` (the ``[gpu]`` extra) and fails, naming the extra, without it or when
it does not start; ``"auto"`` uses CUDA when onnxruntime offers it, else the CPU. Sessions run
sequentially with one inter-op thread, every graph optimisation, and warnings silenced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from schemaseek.errors import EmbeddingError

__all__ = ["CPU_PROVIDER", "CUDA_PROVIDER", "Device", "execution_providers", "onnx_session"]

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


def onnx_session(path: str | Path, *, device: Device, intra_op_threads: int) -> Any:
    """An ``onnxruntime.InferenceSession`` for the model at ``path`` on ``device``.

    ``intra_op_threads``: threads of one operator (``1`` keeps the query path steady when other
    work holds the cores; ``0`` lets onnxruntime use every core, for bulk work).

    Raises:
        EmbeddingError: onnxruntime is missing, the model cannot be loaded, or CUDA was asked
            for and is unavailable or did not start.
    """
    providers = execution_providers(device)
    ort = _onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
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
