"""Usage feedback: which result ids an agent or user actually used for a question.

:class:`FeedbackStore` appends one JSON object per line to a file, flushed and fsynced on every
write, so an event that was acknowledged survives a crash::

    {"ts": "2025-03-01T12:00:00.123456+00:00", "query_id": "9f0c...", "query": "royalty
     payments for Sony", "selected_ids": ["Query.abacusContract", "AbacusRoyaltyPayment"]}

With ``path=None`` events are kept in memory only. The store's ``recent`` is the
:class:`~schemaseek.recent.RecentQueries` the interfaces remember their searches in (the
service and the MCP server it mounts share one), so that a later
``report_usage(query_id, ids)`` stores the question alongside the ids. The events are raw
material for a ranking signal; nothing here changes ranking.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemaseek.errors import ConfigError
from schemaseek.recent import RecentQueries

__all__ = ["FeedbackStore", "UsageEvent"]

logger = logging.getLogger(__name__)


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

    def __init__(self, path: Path | None = None, *, recent: RecentQueries | None = None):
        self.path = path
        self.recent = recent if recent is not None else RecentQueries()
        """The recent searches a report's ``query_id`` is resolved in."""
        self._lock = threading.Lock()
        self._memory: list[UsageEvent] = []
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch(exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot write the feedback file {path}: {exc}") from exc

    def record(
        self, query_id: str, selected_ids: Sequence[str], query: str | None = None
    ) -> UsageEvent:
        """Append one event; ``query`` defaults to the question :attr:`recent` remembers for
        ``query_id``."""
        if not query_id.strip():
            raise ValueError("query_id is empty")
        ids = tuple(dict.fromkeys(i for i in selected_ids if i))
        if not ids:
            raise ValueError("selected_ids holds no id")
        event = UsageEvent(
            ts=datetime.now(UTC).isoformat(),
            query_id=query_id,
            query=query if query is not None else self.recent.question(query_id),
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
