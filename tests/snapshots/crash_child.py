"""Child process of the crash test: warm-starts from a snapshot directory, prints the results
it serves, then re-indexes a changed catalog and writes a generation slowly, announcing every
step on stdout (``STEP <n> <what>``) and pausing there, so the parent can SIGKILL it at exactly
that point.

    python -m tests.snapshots.crash_child ROOT VARIANT PAUSE_S
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from schemaseek.engine import SourceEngine
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from tests.engine.fakes import HashProvider, catalog

QUERIES = ["customer payment", "warehouse stock levels", "royalty contract", "tax refund"]
TABLES = 1000


class SlowStore(LocalDirStore):
    """Announces and pauses at every step of writing a generation."""

    def __init__(self, root: Path, pause_s: float) -> None:
        super().__init__(root)
        self.pause_s = pause_s
        self.step = 0

    def mark(self, what: str) -> None:
        self.step += 1
        sys.stdout.write(f"STEP {self.step} {what}\n")
        sys.stdout.flush()
        # around the rename the parent must win the race for sure: pause longer there
        time.sleep(self.pause_s * (20 if "rename" in what else 1))

    def _write_file(self, path: Path, data: bytes | memoryview) -> None:
        half = len(data) // 2
        with path.open("xb") as handle:
            handle.write(data[:half])
            handle.flush()
            self.mark(f"half {path.name}")
            handle.write(data[half:])
            handle.flush()
            os.fsync(handle.fileno())
        self.mark(f"wrote {path.name}")

    def _rename(self, source: Path, target: Path) -> None:
        self.mark("before-rename")
        super()._rename(source, target)
        self.mark("after-rename")


def main() -> None:
    root, variant, pause = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    store = SlowStore(root, pause)
    provider = HashProvider()
    gate = threading.Event()
    provider.block = gate
    schema = catalog(TABLES, salt=variant)
    engine = SourceEngine(
        "shop", lambda: schema, provider=provider, snapshots=SnapshotManager(store)
    )
    future = engine.init()
    if engine.index.built and engine.generation is not None:
        served = {q: engine.search(q, limit=8).ids() for q in QUERIES}
        sys.stdout.write(
            "PRE " + json.dumps({"generation": engine.generation, "results": served}) + "\n"
        )
        sys.stdout.flush()
    gate.set()
    report = future.result()
    sys.stdout.write(f"DONE {report.generation}\n")
    sys.stdout.flush()
    engine.destroy()


if __name__ == "__main__":
    main()
