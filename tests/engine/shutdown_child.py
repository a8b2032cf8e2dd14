"""Child process of the shutdown tests: an engine embedding in the background, a poller, and
the signal handlers; ``stuck`` adds a closer that never returns.

    python -m tests.engine.shutdown_child graceful|stuck TIMEOUT_S
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.engine import Poller, SourceEngine
from schemaseek.shutdown import GracefulShutdown
from tests.engine.fakes import HashProvider, catalog


class SlowProvider(HashProvider):
    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        time.sleep(0.05)
        return super().embed(texts, progress)


def main() -> None:
    mode, timeout = sys.argv[1], float(sys.argv[2])
    schema = catalog(2000)
    engine = SourceEngine("shop", lambda: schema, provider=SlowProvider(), embed_batch=10)
    engine.init()
    poller = Poller(lambda: engine.refresh().result(), 0.2).start()
    closers = [threading.Event().wait] if mode == "stuck" else []
    shutdown = GracefulShutdown([engine], [poller], closers, timeout_s=timeout)
    shutdown.install()
    print("READY", flush=True)
    shutdown.wait()
    print(f"DRAINED {shutdown.drained} {engine.state.value} {poller.running}", flush=True)


if __name__ == "__main__":
    main()
