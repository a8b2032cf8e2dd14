"""A launcher for lifecycle tests: the real service on the demo with a fast fake embedding
model whose behaviour is steered by files in ``$GATE_DIR``:

* ``hold_fetch`` — reading a source waits while it exists (engines stay initializing);
* ``hold_embed`` — embedding documents waits while it exists (engines stay degraded);
* ``fail_query`` — query embeddings fail while it exists (the query circuit opens).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.service.logs import configure_logging
from schemaseek.service.server import serve
from schemaseek.service.settings import load_service_config
from schemaseek.service.sources import SourcePlan, plan_sources
from schemaseek.sources.base import SourceSchema

GATES = Path(os.environ["GATE_DIR"])


def _wait_while(name: str) -> None:
    deadline = time.monotonic() + 120
    while (GATES / name).exists() and time.monotonic() < deadline:
        time.sleep(0.05)


class GatedProvider:
    """Deterministic 32-dimensional vectors from text hashes."""

    model_id = "gated-test-model"
    dimensions = 32

    def _vector(self, text: str) -> Vectors:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        row = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
        return row / np.linalg.norm(row)

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        _wait_while("hold_embed")
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        if (GATES / "fail_query").exists():
            raise RuntimeError("query model down (test)")
        return self._vector(text)


def _gated(fetch: Callable[[], SourceSchema]) -> Callable[[], SourceSchema]:
    def gated() -> SourceSchema:
        _wait_while("hold_fetch")
        return fetch()

    return gated


def main(argv: list[str]) -> int:
    port = int(argv[argv.index("--port") + 1])
    plan = plan_sources(demo=True)
    plan.sources = [SourcePlan(s.name, _gated(s.fetch)) for s in plan.sources]
    config = load_service_config(overrides={"port": port})
    configure_logging(config.log_level, config.log_format)
    return serve(config, plan, provider=GatedProvider())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
