"""Usage feedback: which result ids an agent or user actually used for a question.

:class:`FeedbackStore` appends one JSON object per line to a file, flushed and fsynced on every
write, so an event that was acknowledged survives a crash::

    {"ts": "2025-03-01T12:00:00.123456+00:00", "query_id": "9f0c...", "query": "royalty
     payments for Sony", "selected_ids": ["Query.abacusContract", "AbacusRoyaltyPayment"]}

With ``path=None`` events are kept in memory only. The store also remembers the text of recent
searches by ``query_id`` (bounded, least recently used dropped first), so that a later
``report_usage(query_id, ids)`` can store the question alongside the ids. The events are raw
material for a ranking signal; nothing here changes ranking.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemaseek.errors import ConfigError

__all__ = ["FeedbackStore", "UsageEvent"]

logger = logging.getLogger(__name__)

DEFAULT_RECENT_QUERIES = 10_000


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """One report: the search it answers, its question (when known) and the ids used."""

    ts: str
    query_id: str
    query: str | None
    selected_ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ts": self.ts,
            "query_id": self.query_id,
            "query": self.query,
            "selected_ids": list(self.selected_ids),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UsageEvent:
        return cls(
            ts=str(data["ts"]),
            query_id=str(data["query_id"]),
            query=None if data.get("query") is None else str(data["query"]),
            selected_ids=tuple(str(i) for i in data.get("selected_ids", ())),
        )


class FeedbackStore:
    """Append-only usage events (JSONL file, or memory when ``path`` is None); thread-safe."""

    def __init__(self, path: Path | None = None, *, max_queries: int = DEFAULT_RECENT_QUERIES):
        self.path = path
        self.max_queries = max(1, max_queries)
        self._lock = threading.Lock()
        self._memory: list[UsageEvent] = []
        self._queries: OrderedDict[str, str] = OrderedDict()
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch(exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot write the feedback file {path}: {exc}") from exc

    def remember(self, query_id: str, query: str) -> None:
        """Keep the text of a search so a later report can name its question."""
        with self._lock:
            self._queries[query_id] = query
            self._queries.move_to_end(query_id)
            while len(self._queries) > self.max_queries:
                self._queries.popitem(last=False)

    def query_text(self, query_id: str) -> str | None:
        """The remembered question of ``query_id``, or None when unknown or evicted."""
        with self._lock:
            return self._queries.get(query_id)

    def record(
        self, query_id: str, selected_ids: Sequence[str], query: str | None = None
    ) -> UsageEvent:
        """Append one event; ``query`` defaults to the remembered text of ``query_id``."""
        if not query_id.strip():
            raise ValueError("query_id is empty")
        ids = tuple(dict.fromkeys(i for i in selected_ids if i))
        if not ids:
            raise ValueError("selected_ids holds no id")
        event = UsageEvent(
            ts=datetime.now(UTC).isoformat(),
            query_id=query_id,
            query=query if query is not None else self.query_text(query_id),
            selected_ids=ids,
        )
        line = json.dumps(event.to_dict(), ensure_ascii=False) + "\n"
        with self._lock:
            if self.path is None:
                self._memory.append(event)
            else:
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line)
                    handle.flush()
                    os.fsync(handle.fileno())
        return event

    def events(self) -> list[UsageEvent]:
        """Every event recorded so far, oldest first (unreadable lines are skipped, logged)."""
        with self._lock:
            if self.path is None:
                return list(self._memory)
            lines = self.path.read_text(encoding="utf-8").splitlines()
        out: list[UsageEvent] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                out.append(UsageEvent.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                logger.warning("feedback file %s line %d is unreadable: %s", self.path, number, exc)
        return out
