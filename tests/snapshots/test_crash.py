"""Crash safety: a process writing a generation is SIGKILLed at many points; every restart
serves the previous valid generation (or the new one, once complete), never a partial one,
and answers exactly as the process did before it crashed."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from schemaseek.engine import SourceEngine
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import HashProvider
from tests.snapshots.crash_child import QUERIES

REPO = Path(__file__).resolve().parents[2]
PAUSE_S = 0.05


def run_child(
    root: Path, variant: str, kill_at: int | None = None, kill_after_s: float | None = None
) -> dict[str, Any]:
    """Run the child; kill it at step ``kill_at`` (or after ``kill_after_s``). Returns what it
    printed: ``pre`` (its served results), ``steps`` seen, ``killed_after`` (the step text)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.snapshots.crash_child", str(root), variant, str(PAUSE_S)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert child.stdout is not None
    seen: dict[str, Any] = {"pre": None, "steps": [], "killed_after": None, "done": None}
    deadline = time.monotonic() + 120
    started = time.monotonic()
    for line in child.stdout:
        if line.startswith("PRE "):
            seen["pre"] = json.loads(line[4:])
        elif line.startswith("STEP "):
            _, number, what = line.rstrip("\n").split(" ", 2)
            seen["steps"].append(what)
            timed_out = kill_after_s is not None and time.monotonic() - started >= kill_after_s
            if int(number) == kill_at or timed_out:
                child.send_signal(signal.SIGKILL)
                seen["killed_after"] = what
                break
        elif line.startswith("DONE "):
            seen["done"] = line.split()[1]
        assert time.monotonic() < deadline, "child took too long"
    child.wait(60)
    if seen["killed_after"] is not None:
        assert child.returncode == -signal.SIGKILL
    else:
        assert child.returncode == 0
    child.stdout.close()
    return seen


def restart(root: Path) -> tuple[str | None, dict[str, list[str]], HashProvider]:
    """A fresh engine whose source is unreachable: it can only serve a snapshot."""

    def down() -> SourceSchema:
        raise OSError("source down")

    provider = HashProvider()
    engine = SourceEngine(
        "shop", down, provider=provider, snapshots=SnapshotManager(LocalDirStore(root))
    )
    engine.init(wait=True)
    results = {q: engine.search(q, limit=8).ids() for q in QUERIES}
    generation = engine.generation
    engine.destroy()
    return generation, results, provider


@pytest.mark.slow
def test_sigkill_while_writing_never_loads_a_partial_generation(tmp_path: Path) -> None:
    first = run_child(tmp_path, "base")
    assert first["done"] and first["pre"] is None  # cold start wrote the first generation
    total_steps = len(first["steps"])
    assert total_steps >= 20
    serving, expected, _ = restart(tmp_path)
    assert serving == first["done"]

    rng = random.Random(5)
    marks = sorted(
        {
            1,
            2,
            5,
            9,
            14,
            total_steps // 2,
            total_steps - 4,
            total_steps - 3,
            total_steps - 2,
            total_steps - 1,
        }
    )
    trials: list[tuple[int | None, float | None]] = [(m, None) for m in marks]
    trials += [(None, rng.uniform(0.5, total_steps * PAUSE_S)) for _ in range(3)]
    trials.append((total_steps, None))  # killed right after the rename: the new one is complete
    assert len(trials) >= 10
    for number, (kill_at, kill_after) in enumerate(trials):
        seen = run_child(tmp_path, f"variant-{number}", kill_at, kill_after)
        pre = seen["pre"]
        assert pre is not None and pre["generation"] == serving and pre["results"] == expected
        generation, results, provider = restart(tmp_path)
        assert provider.embed_calls == 0, "a restart must not re-embed"
        if seen["killed_after"] == "after-rename":
            assert generation not in (None, serving), "a completed generation must be loaded"
            serving, expected = generation, results
        else:
            assert generation == serving, f"killed after {seen['killed_after']!r}"
            assert results == pre["results"]
    leftovers = [p.name for p in tmp_path.rglob(".tmp-*")]
    assert leftovers, "interrupted writes leave hidden temporary folders (purged once old)"
    manager = SnapshotManager(LocalDirStore(tmp_path))
    assert all(manager.is_valid(g) for g in manager.generations("shop"))
