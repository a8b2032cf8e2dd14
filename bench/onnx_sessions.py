"""How to open the ONNX embedding model's sessions: graph-optimisation level, or the graph
optimised once and saved. Measures, per variant, the CPU time to create a session (fresh
process each time, so no cache of onnxruntime's is warm), single-query CPU time (one intra-op
thread, p50 over the demo's questions) and bulk throughput, and checks that the embeddings
equal those of the reference level (``all``) within float tolerance.

    python bench/onnx_sessions.py [--repeat 5] [--bulk 512]

Prints a Markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

LEVELS = ("disable", "basic", "extended", "all")

CHILD = r"""
import json, sys, time, resource
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
from schemaseek.embedding.onnx import default_model_path, default_tokenizer_path
from schemaseek.sources.demo import demo_questions, demo_sources

level, model, bulk = sys.argv[1], sys.argv[2], int(sys.argv[3])
model = str(default_model_path()) if model == "-" else model
levels = {"disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
          "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
          "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def session(threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = levels[level]
    options.log_severity_level = 3
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])

c0 = cpu(); w0 = time.perf_counter()
query_session = session(1)  # the first session of the process, as in a CLI run
create_cpu, create_wall = cpu() - c0, time.perf_counter() - w0
c0 = cpu()
bulk_session = session(0)
second_cpu = cpu() - c0
tokenizer = Tokenizer.from_file(str(default_tokenizer_path()))
tokenizer.no_padding()
tokenizer.enable_truncation(max_length=256)
names = {i.name for i in query_session.get_inputs()}

def embed(sess, texts):
    enc = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in enc)
    ids = np.zeros((len(enc), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(enc):
        ids[row, :len(e.ids)] = e.ids
        mask[row, :len(e.ids)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        feeds["token_type_ids"] = np.zeros_like(ids)
    hidden = sess.run(None, feeds)[0]
    w = mask[:, :, None].astype(np.float32)
    pooled = (hidden * w).sum(axis=1) / w.sum(axis=1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

questions = demo_questions()
texts = sorted((d.embedding_text() for s in demo_sources() for d in s.documents), key=len)[:bulk]
embed(query_session, questions[:1])
times = []
for _ in range(3):
    for q in questions:
        c = cpu(); embed(query_session, [q]); times.append(cpu() - c)
queries = np.concatenate([embed(query_session, [q]) for q in questions])
w = time.perf_counter(); c = cpu()
docs = np.concatenate([embed(bulk_session, texts[i:i + 32]) for i in range(0, len(texts), 32)])
bulk_wall, bulk_cpu = time.perf_counter() - w, cpu() - c
np.save(sys.argv[4], np.concatenate([queries, docs]))
print(json.dumps({"create_cpu": create_cpu, "create_wall": create_wall,
                  "second_cpu": second_cpu,
                  "query_p50_ms": 1000 * float(np.median(times)),
                  "bulk_docs_per_s": len(texts) / bulk_wall,
                  "bulk_cpu_ms_per_doc": 1000 * bulk_cpu / len(texts)}))
"""


def save_optimised(level: str, target: Path) -> float:
    """Optimise the model at ``level`` once and save it; returns the CPU seconds it took."""
    code = (
        "import resource, onnxruntime as ort\n"
        "from schemaseek.embedding.onnx import default_model_path\n"
        "o = ort.SessionOptions(); o.log_severity_level = 3\n"
        "o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_"
        f"{level.upper()}\n"
        f"o.optimized_model_filepath = {str(target)!r}\n"
        "ort.InferenceSession(str(default_model_path()), o, providers=['CPUExecutionProvider'])\n"
        "r = resource.getrusage(resource.RUSAGE_SELF); print(r.ru_utime + r.ru_stime)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def run(level: str, model: str, bulk: int, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, level, model, str(bulk), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bulk", type=int, default=512)
    args = parser.parse_args()
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        saved = folder / "optimised.onnx"
        save_cpu = save_optimised("extended", saved)
        variants = [(level, "-") for level in reversed(LEVELS)] + [("disable", str(saved))]
        rows = []
        reference = None
        for level, model in variants:  # "all" first: the reference
            label = f"{level}" if model == "-" else "saved (extended), loaded at disable"
            results = [run(level, model, args.bulk, folder / "v.npy") for _ in range(args.repeat)]
            vectors = np.load(folder / "v.npy")
            if reference is None:
                reference = vectors
            diff = float(np.abs(vectors - reference).max())
            cosine = float((vectors * reference).sum(axis=1).min())

            def med(key: str, results: list[dict[str, float]] = results) -> float:
                return float(np.median([r[key] for r in results]))

            rows.append(
                f"| {label} | {med('create_cpu'):.3f} | {med('create_wall'):.3f} | "
                f"{med('second_cpu'):.3f} | {med('query_p50_ms'):.2f} | "
                f"{med('bulk_cpu_ms_per_doc'):.1f} | {med('bulk_docs_per_s'):.0f} | "
                f"{diff:.1e} | {cosine:.6f} |"
            )
    load = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; ")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; ")
    print(f"command: python bench/onnx_sessions.py --repeat {args.repeat} --bulk {args.bulk}")
    print(f"saving the extended-optimised graph once took {save_cpu:.2f} s CPU\n")
    print(
        "| session | 1st session CPU s | 1st session wall s | 2nd session CPU s "
        "| query p50 CPU ms | bulk CPU ms/doc | bulk docs/s | max abs diff vs all "
        "| min cosine vs all |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
