"""What a model directory (``onnx_model``) costs beside the packaged MiniLM, alone and fused
with it, interleaved.

For each model: bulk embedding of real document texts (the Saleor schema's, the first
``--documents``; all cores, as an index build runs it) and single-question embedding (one
thread, as a search runs it; p50 over questions written for other schemas). Rounds alternate
the models so load on the shared machine falls on both; CPU time (``time.process_time`` for the
bulk, ``time.thread_time`` for questions) is printed beside wall time, with the load average.

    .venv/bin/python bench/model_cost.py ~/.cache/schemaseek/models/all-mpnet-base-v2

Prints a Markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.factory import create_provider
from schemaseek.sources.graphql import load_sdl

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT.parent / "shared" / "datasets" / "graphql"
QUESTIONS = ROOT / "bench" / "questions" / "gitlab.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir", help="a model directory (see schemaseek.embedding.model_dir)")
    parser.add_argument("--documents", type=int, default=512)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    source = load_sdl(SCHEMAS / "saleor.graphql", "saleor")
    texts = [d.embedding_text() for d in source.documents][: args.documents]
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    questions = questions[: args.questions]
    models: dict[str, EmbeddingProvider] = {
        "all-MiniLM-L6-v2 int8 (default)": create_provider("onnx"),
        Path(args.model_dir).name: create_provider("onnx", model_dir=args.model_dir),
        "fused, share 0.7 (the option's default)": create_provider(
            "onnx", model_dir=args.model_dir, model_share=0.7
        ),
    }
    for provider in models.values():  # load both sessions before anything is timed
        provider.embed(texts[:4])
        provider.embed_query("warm up")
    bulk: dict[str, list[tuple[float, float]]] = {name: [] for name in models}
    query: dict[str, list[tuple[float, float]]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, provider in models.items():
            wall, cpu = time.perf_counter(), time.process_time()
            provider.embed(texts)
            bulk[name].append((time.perf_counter() - wall, time.process_time() - cpu))
            for i, question in enumerate(questions):
                wall, cpu = time.perf_counter(), time.thread_time()
                provider.embed_query(f"{question} ({i})")  # never the query cache
                query[name].append((time.perf_counter() - wall, time.thread_time() - cpu))
    print(f"{platform.node()}, {os.cpu_count()} cores, load average {os.getloadavg()}")
    print(f"{len(texts)} Saleor document texts, {len(questions)} questions, {args.rounds} rounds")
    print("| model | bulk ms/document wall / CPU | question p50 ms wall / CPU |")
    print("|---|---|---|")
    for name in models:
        walls = [w / len(texts) * 1e3 for w, _ in bulk[name]]
        cpus = [c / len(texts) * 1e3 for _, c in bulk[name]]
        q_wall = statistics.median(w for w, _ in query[name]) * 1e3
        q_cpu = statistics.median(c for _, c in query[name]) * 1e3
        print(
            f"| {name} | {min(walls):.2f} / {min(cpus):.2f} | {q_wall:.1f} / {q_cpu:.1f} |",
        )


if __name__ == "__main__":
    main()
