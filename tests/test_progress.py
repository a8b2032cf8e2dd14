"""Progress of long steps when stderr is not a terminal: periodic log lines (LogProgress), from
the command line's builds, snapshot loads and saves included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schemaseek.progress import LogProgress

SDL = "type Query { orders: [Order] }\ntype Order { id: ID total: Float }\n"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_lines_at_start_every_interval_and_at_the_end() -> None:
    lines: list[str] = []
    clock = Clock()
    progress = LogProgress(lines.append, interval_s=10.0, clock=clock)
    for now, done in ((0, 0), (5, 20), (9.9, 30), (11, 40), (15, 50), (12.5 + 10, 90), (24, 100)):
        clock.now = now
        progress("embedding", done, 100)
    progress("embedding", 100, 100)  # reported twice: said once
    assert lines == [
        "embedding: 0/100",
        "embedding: 40/100 (40%) after 11 s, about 16 s left",
        "embedding: 90/100 (90%) after 22 s, about 2 s left",
        "embedding: 100/100 (100%) in 24.0 s",
    ]
    clock.now = 30
    progress("embedding", 0, 5000)  # a new run of the same stage
    progress("keyword", 7, 7)  # complete at once: one line
    assert lines[4:] == ["embedding: 0/5,000", "keyword: 7/7"]


def test_the_cli_logs_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "shop.graphql").write_text(SDL, encoding="utf-8")
    run = [sys.executable, "-m", "schemaseek", "index", "--sdl", "shop.graphql", "--json"]
    done = subprocess.run(run, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    count = json.loads(done.stdout)["documents"]  # stdout stays one JSON object
    lines = done.stderr.splitlines()
    assert count >= 4 and f"schemaseek: keyword shop: {count}/{count}" in lines
    for stage in ("embedding shop", "snapshot save shop"):
        assert [line for line in lines if line.startswith(f"schemaseek: {stage}: ")], (stage, lines)
    assert not any("\x1b[" in line for line in lines)  # no terminal codes in a log

    for stages in (("embedding shop", "snapshot save shop"), ("snapshot load shop",)):
        snapshots = [*run, "--snapshot-dir", "snaps"]  # cold, then warm from its snapshot
        done = subprocess.run(snapshots, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        for stage in stages:
            found = [line for line in lines if line.startswith(f"schemaseek: {stage}: ")]
            assert found, (stage, lines)
