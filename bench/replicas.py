"""Three replicas, one shared snapshot store, one Redis: who embeds, how fast a change reaches
every replica, how fast a stalled lease holder is taken over.

    .venv/bin/python bench/replicas.py [--docs 1000] [--changed 50] [--ttl 5] [--poll 1]
                                       [--provider onnx|synthetic] [--where DIR|s3://B/P]
                                       [--s3-endpoint URL] [--redis redis://127.0.0.1:6379/0]

Documents are spider2-snow tables (as in ``bench/lifecycle.py``). Each replica is an in-process
:class:`~schemaseek.cluster.ReplicaUnit` with its own Redis connections, its own store client
and its own counting provider (over one shared model). Measured:

* cold start: the three start at once; embeddings per replica, wall time until all serve;
* change: ``--changed`` documents reworded, every replica refreshes at once (as their pollers
  would); embeddings per replica, time from the change until all three serve the new
  generation;
* takeover: a build of another change starts on one replica, which then stalls (its provider
  blocks and it stops renewing its lease, as a paused or killed process would); the others
  poll every ``--poll`` s. Time from the stall until another replica holds the lease, and
  until all serve its generation; the stalled holder's late save must be refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait
from typing import Any

from lifecycle import CATALOG, SyntheticProvider, documents, source
from schemaseek.cluster import RedisCoordinator, ReplicaUnit
from schemaseek.embedding.counting import CountingProvider
from schemaseek.engine import SourceEngine
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.store import open_store
from schemaseek.sources.base import SourceSchema


class Blockable(CountingProvider):
    """Counts texts; blocks ``embed`` while :attr:`gate` is cleared."""

    def __init__(self, provider: Any) -> None:
        super().__init__(provider)
        self.gate = threading.Event()
        self.gate.set()

    def embed(self, texts: Any, progress: Any = None) -> Any:
        self.gate.wait()
        return super().embed(texts, progress)


class Live:
    """The source every replica fetches."""

    def __init__(self, schema: SourceSchema) -> None:
        self.schema = schema

    def __call__(self) -> SourceSchema:
        return self.schema


def reworded(schema: SourceSchema, count: int, salt: str) -> SourceSchema:
    docs = list(schema.documents)
    for i in range(count):
        docs[i] = dataclasses.replace(docs[i], description=f"{docs[i].description} ({salt})")
    return source(docs)


def wait_for(condition: Callable[[], bool], timeout: float = 600.0) -> float:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise TimeoutError("condition not met")
        time.sleep(0.005)
    return time.perf_counter()


def run(args: argparse.Namespace) -> dict[str, Any]:
    base = SyntheticProvider() if args.provider == "synthetic" else None
    if base is None:
        from schemaseek.embedding.onnx import OnnxEmbeddingProvider

        base = OnnxEmbeddingProvider()
    live = Live(source(documents(args.docs, CATALOG)))
    prefix = f"bench-replicas:{secrets.token_hex(3)}:"
    where = args.where or tempfile.mkdtemp(prefix="replicas-")
    units: list[ReplicaUnit] = []
    providers: list[Blockable] = []
    coordinators: list[RedisCoordinator] = []
    for i in range(3):
        provider = Blockable(base)
        manager = SnapshotManager(open_store(where, s3_endpoint_url=args.s3_endpoint))
        coordinator = RedisCoordinator(
            args.redis, prefix=prefix, replica_id=f"r{i}", lease_ttl_s=args.ttl
        )

        def factory(name: str, fetch: Any, p: Blockable = provider, m: SnapshotManager = manager):
            return SourceEngine(name, fetch, provider=p, snapshots=m, embed_batch=64)

        units.append(ReplicaUnit("bench", live, factory, None, coordinator, retry_s=args.poll))
        providers.append(provider)
        coordinators.append(coordinator)
    out: dict[str, Any] = {"docs": args.docs, "changed": args.changed, "ttl_s": args.ttl}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        started = time.perf_counter()
        futures = [u.start() for u in units]
        wait(futures)
        for f in futures:
            f.result()
        wait_for(lambda: len({u.generation for u in units}) == 1)
        out["cold"] = {
            "embedded_per_replica": [p.embedded_texts for p in providers],
            "all_serving_s": round(time.perf_counter() - started, 2),
        }
        for p in providers:
            p.reset()

        live.schema = reworded(live.schema, args.changed, "change one")
        before = units[0].generation
        changed_at = time.perf_counter()
        reports = [f.result() for f in [u.refresh() for u in units]]
        done = wait_for(lambda: all(u.generation not in (None, before) for u in units))
        out["change"] = {
            "embedded_per_replica": [p.embedded_texts for p in providers],
            "all_serving_s": round(done - changed_at, 3),
            "builder_took_s": round(max(r.took_s for r in reports), 3),
        }
        for p in providers:
            p.reset()

        stalled, others = units[0], units[1:]
        providers[0].gate.clear()
        live.schema = reworded(live.schema, args.changed, "change two")
        late = stalled.refresh()
        wait_for(lambda: stalled.coordination().get("role") == "holder")
        coordinators[0].renew = lambda lease: True  # type: ignore[method-assign]
        stalled_at = time.perf_counter()  # its last renewal was at most ttl/3 before this
        stop = threading.Event()

        def poll(unit: ReplicaUnit) -> None:
            while not stop.wait(args.poll):
                unit.refresh().result()

        pollers = [threading.Thread(target=poll, args=(u,), daemon=True) for u in others]
        for t in pollers:
            t.start()
        taken = wait_for(lambda: any(u.coordination().get("role") == "holder" for u in others))
        previous = stalled.generation
        served = wait_for(lambda: all(u.generation not in (None, previous) for u in others))
        stop.set()
        providers[0].gate.set()
        report = late.result()
        out["takeover"] = {
            "lease_taken_s": round(taken - stalled_at, 2),
            "all_others_serving_s": round(served - stalled_at, 2),
            "bound_s": args.ttl + args.poll,
            "late_save_refused": "fencing token" in str(report.extra.get("save_error", "")),
            "embedded_per_replica": [p.embedded_texts for p in providers],
        }
        for t in pollers:
            t.join()
    finally:
        for u in units:
            u.destroy(30)
        for c in coordinators:
            c.close()
    out["cpu_s"] = round(time.process_time() - cpu0, 1)
    out["wall_s"] = round(time.perf_counter() - wall0, 1)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    out["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    out["provider"] = args.provider
    out["store"] = "s3" if str(where).startswith("s3://") else "directory"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--changed", type=int, default=50)
    parser.add_argument("--provider", choices=["onnx", "synthetic"], default="onnx")
    parser.add_argument("--ttl", type=float, default=5.0, help="lease TTL, seconds")
    parser.add_argument("--poll", type=float, default=1.0, help="poll interval of the others")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--where", help="store: a directory (default: a new temporary one) "
                        "or s3://bucket/prefix")  # fmt: skip
    parser.add_argument("--s3-endpoint", help="an S3-compatible endpoint for s3:// stores")
    parser.add_argument("--moto", action="store_true", help="s3 on a local moto server")
    args = parser.parse_args()
    if not args.moto:
        print(json.dumps(run(args), indent=1))
        return
    import boto3
    from moto.server import ThreadedMotoServer

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        args.s3_endpoint = f"http://{host}:{port}"
        boto3.client("s3", endpoint_url=args.s3_endpoint).create_bucket(Bucket="replicas")
        args.where = "s3://replicas/bench"
        print(json.dumps(run(args), indent=1))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
