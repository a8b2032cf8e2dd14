"""Calibrate the MCP ``match`` rule (``schemaseek/mcp/confidence.py``) on our question sets.

Real questions: every question of the GitLab and Saleor sets and the dev halves of the other
labelled sets (never GitHub or Shopify). Off-domain questions: the list below, written to name
nothing any schema holds. For each, the best cosine and word coverage over the top five hits
of an unfiltered search; the script prints their distribution and how the current rule
classifies each group.

    .venv/bin/python bench/confidence_calibration.py
"""

from __future__ import annotations

import numpy as np

from graphql_eval import LABELLED, TUNING, build_index, load_questions
from schemaseek.config import default_cache_dir
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.mcp.confidence import COVERAGE, assess

OFF_DOMAIN = [
    "purple elephant tax on moonlight",
    "how tall is mount everest",
    "what is the capital of australia",
    "recipe for banana bread without eggs",
    "who won the 1998 world cup",
    "translate good morning into japanese",
    "why is the sky blue",
    "best hiking trails near lake tahoe",
    "how many moons does jupiter have",
    "tell me a joke about penguins",
    "symptoms of the common cold",
    "what rhymes with orange",
    "how do volcanoes form",
    "lyrics of a famous opera aria",
    "the boiling point of water on mars",
    "train times from paris to lyon tomorrow",
    "how to knit a scarf for beginners",
    "distance between the earth and the moon",
    "which dinosaur had the longest neck",
    "meaning of life the universe and everything",
    "how to grow tomatoes on a balcony",
    "who painted the sistine chapel ceiling",
    "is it going to rain in dublin this weekend",
    "origin of the word quarantine",
    "how fast can a cheetah run",
]


def main() -> None:
    disk = DiskCachedProvider(OnnxEmbeddingProvider(), default_cache_dir() / "embeddings")
    real: list[tuple[float, float, str]] = []
    off: list[tuple[float, float, str]] = []
    for schema in (*TUNING, *LABELLED):
        questions = [q for q in load_questions(schema) if q.split == "dev"]
        index = build_index(schema, questions, disk)
        for text, into in [(q.question, real) for q in questions] + [(t, off) for t in OFF_DOMAIN]:
            verdict = assess(index.search(text, limit=5))
            into.append((verdict.cosine or 0.0, verdict.coverage, verdict.match))
    print("weak cosine  real answered 'none'  off-domain answered weak/strong")
    for weak in (0.26, 0.28, 0.30, 0.32, 0.35):
        missed = sum(1 for c, cov, _ in real if c < weak and cov < COVERAGE) / len(real)
        wrong = sum(1 for c, cov, _ in off if c >= weak or cov >= COVERAGE) / len(off)
        print(f"{weak:11.2f}  {missed:20.3f}  {wrong:30.3f}")
    for name, rows in (("real", real), ("off-domain", off)):
        cosines = np.array([r[0] for r in rows])
        coverage = np.array([r[1] for r in rows])
        verdicts = {m: sum(1 for r in rows if r[2] == m) for m in ("strong", "weak", "none")}
        print(
            f"{name:10} n={len(rows):4} cosine p1 {np.percentile(cosines, 1):.3f} p5 "
            f"{np.percentile(cosines, 5):.3f} p50 {np.median(cosines):.3f} max "
            f"{cosines.max():.3f}; coverage p50 {np.median(coverage):.2f} max "
            f"{coverage.max():.2f}; verdicts {verdicts}"
        )


if __name__ == "__main__":
    main()
