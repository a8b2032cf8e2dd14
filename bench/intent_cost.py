"""What the read-or-action rule (query/intent.py) costs a search: question cues per question.

Every question text of ``bench/questions`` goes through ``question_cues``: once in a fresh
process (the first pass loads lemminflect's dictionary, on the first question of imperative
shape), then ``--repeat`` warm passes. Thread CPU time and wall time per question, and the
load average, are printed; results are recorded in bench/RESULTS.md.

    .venv/bin/python bench/intent_cost.py --repeat 20
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from schemaseek.query.intent import question_cues

QUESTIONS = Path(__file__).resolve().parent / "questions"


def one_pass(texts: list[str]) -> tuple[float, float]:
    """Microseconds per question: (thread CPU, wall)."""
    cpu, wall = time.thread_time(), time.perf_counter()
    for text in texts:
        question_cues(text)
    return (
        (time.thread_time() - cpu) / len(texts) * 1e6,
        (time.perf_counter() - wall) / len(texts) * 1e6,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    texts = [
        json.loads(line)["question"]
        for path in sorted(QUESTIONS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    cold = one_pass(texts)
    warm = [one_pass(texts) for _ in range(args.repeat)]
    print(f"{len(texts)} questions, load average {os.getloadavg()[0]:.2f}")
    print(f"first pass (dictionary load included): cpu {cold[0]:.1f} us, wall {cold[1]:.1f} us")
    print(
        f"warm, median of {args.repeat}: cpu {statistics.median(w[0] for w in warm):.1f} us, "
        f"wall {statistics.median(w[1] for w in warm):.1f} us a question"
    )


if __name__ == "__main__":
    main()
